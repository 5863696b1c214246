package engine

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/rdmalab/rdmalab/engine/snap"
	"github.com/rdmalab/rdmalab/engine/svcrdma"
)

// Settings and the snapshot's snap.Settings are one list of fields: the
// same names and JSON names in the same order, and Snap copies every one,
// so settings encode alike whichever of the two a program holds.
func TestSettingsSnapIsTheSameData(t *testing.T) {
	et, st := reflect.TypeFor[Settings](), reflect.TypeFor[snap.Settings]()
	if et.NumField() != st.NumField() {
		t.Fatalf("engine.Settings has %d fields, snap.Settings %d", et.NumField(), st.NumField())
	}
	for i := range et.NumField() {
		e, s := et.Field(i), st.Field(i)
		if e.Name != s.Name || e.Tag.Get("json") != s.Tag.Get("json") {
			t.Errorf("field %d: engine.Settings has %s %q, snap.Settings %s %q", i, e.Name, e.Tag.Get("json"), s.Name, s.Tag.Get("json"))
		}
	}

	// Every field set to something other than its zero value.
	var set Settings
	v := reflect.ValueOf(&set).Elem()
	for i := range v.NumField() {
		f := v.Field(i)
		switch f.Kind() {
		case reflect.Bool:
			f.SetBool(true)
		case reflect.Int, reflect.Int64:
			f.SetInt(int64(i + 1))
		case reflect.String:
			f.SetString("profile")
		case reflect.Map:
			f.Set(reflect.ValueOf(map[svcrdma.Bug]bool{svcrdma.B1: true, svcrdma.B4: false}))
		default:
			t.Fatalf("field %s: no test value for a %v", v.Type().Field(i).Name, f.Kind())
		}
	}
	want, err := json.Marshal(set)
	if err != nil {
		t.Fatal(err)
	}
	got, err := json.Marshal(set.Snap())
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("snap.Settings encodes as\n%s\nengine.Settings as\n%s", got, want)
	}
	if def := DefaultSettings(); def.Snap().Bugs != nil {
		t.Errorf("no bugs set, yet the snapshot's settings carry %v", def.Snap().Bugs)
	}
}
