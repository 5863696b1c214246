package engine

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/rdmalab/rdmalab/engine/snap"
	"github.com/rdmalab/rdmalab/engine/svcrdma"
)

// Settings and the snapshot's snap.Settings are one declaration: the
// engine's type is the snapshot's with methods, so a field cannot be
// added to one and not the other, and both encode alike. Snap gives the
// snapshot a map of bugs of its own.
func TestSettingsSnapIsTheSameData(t *testing.T) {
	if et, st := reflect.TypeFor[Settings](), reflect.TypeFor[snap.Settings](); !et.ConvertibleTo(st) {
		t.Fatalf("engine.Settings is not declared as snap.Settings")
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
			f.Set(reflect.ValueOf(map[string]bool{string(svcrdma.B1): true, string(svcrdma.B4): false}))
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
	set.Snap().Bugs[string(svcrdma.B1)] = false
	if !set.Bugs[string(svcrdma.B1)] {
		t.Error("a snapshot's bugs are the lab's map: changing them changed the lab's settings")
	}
	if def := DefaultSettings(); def.Snap().Bugs != nil {
		t.Errorf("no bugs set, yet the snapshot's settings carry %v", def.Snap().Bugs)
	}
}
