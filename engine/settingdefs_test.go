package engine

import (
	"reflect"
	"slices"
	"strings"
	"testing"
)

// Every setting reads back what it was set to, and its name is an
// Settings JSON name or a bug.
func TestSettingsRoundTrip(t *testing.T) {
	for _, st := range SettingsTable() {
		s := DefaultSettings()
		if len(st.Values) == 0 {
			t.Errorf("%s: no values to offer", st.Name)
			continue
		}
		v := st.Values[len(st.Values)-1].Text
		if err := st.set(&s, v); err != nil {
			t.Errorf("%s %s: %v", st.Name, v, err)
			continue
		}
		if got := strings.TrimSuffix(st.get(s), " (profile)"); got != v && !(v == "default") {
			t.Errorf("%s: set %q, reads %q", st.Name, v, got)
		}
	}
}

// Every field of Settings is a row of the settings table: some
// row's set changes it, and that row is named by the field's JSON name
// (the bugs map: the B rows). A field added without a row fails here.
// engine is the provider, chosen by the engine command, not by set.
func TestSettingsTableCoversEveryField(t *testing.T) {
	typ := reflect.TypeFor[Settings]()
	changedBy := map[string][]string{} // field → rows that change it
	for _, st := range SettingsTable() {
		for _, v := range st.Values {
			before := DefaultSettings()
			after := before.Clone()
			if err := st.set(&after, v.Text); err != nil {
				continue
			}
			bv, av := reflect.ValueOf(before), reflect.ValueOf(after)
			for i := range typ.NumField() {
				if !reflect.DeepEqual(bv.Field(i).Interface(), av.Field(i).Interface()) {
					f := typ.Field(i).Name
					changedBy[f] = append(changedBy[f], st.Name)
				}
			}
		}
	}
	for i := range typ.NumField() {
		f := typ.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "engine" {
			continue
		}
		rows := changedBy[f.Name]
		if len(rows) == 0 {
			t.Errorf("engine.Settings.%s (%q): no row of the settings table sets it", f.Name, name)
			continue
		}
		if f.Name == "Bugs" {
			continue // B1..B13, and profile resets them
		}
		if !slices.Contains(rows, name) {
			t.Errorf("engine.Settings.%s is set by %v, not by a row named %q", f.Name, rows, name)
		}
	}
}
