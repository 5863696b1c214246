package repl

import "testing"

func TestParseStatusSuggests(t *testing.T) {
	if st, err := parseStatus("ibv_wc_rem_access_err"); err != nil || st.String() != "REM_ACCESS_ERR" {
		t.Errorf("%v %v", st, err)
	}
	if _, err := parseStatus("REM_ACESS_ERR"); err == nil || err.Error() != `unknown completion status "REM_ACESS_ERR": did you mean REM_ACCESS_ERR?` {
		t.Errorf("%v", err)
	}
}

func TestFitText(t *testing.T) {
	got := fitText("  name   a description that is long enough to need wrapping somewhere here", 40)
	want := "  name   a description that is long\n         enough to need wrapping\n         somewhere here"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if got := reflow("one\ntwo\n  list\nthree:\nfour"); got != "one two\n  list\nthree:\nfour" {
		t.Errorf("reflow: %q", got)
	}
}
