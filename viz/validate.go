package viz

import (
	"fmt"
	"math"
	"reflect"
	"strings"

	"github.com/rdmalab/rdmalab/engine/snap"
	"github.com/rdmalab/rdmalab/engine/trace"
)

// A snapshot from a file or a socket is a claim: every number the panes
// use as a size, an index, a repeat count or a loop bound is checked
// against what a session can really produce, and the whole is bounded, so
// a bad one is refused before anything is drawn. The limits are far above
// what the REPL's settings allow (page_size ≤ 65536, sizes ≤ 16 MiB,
// sq_depth ≤ 2^20, 64 threads).
//
// What the view does with a snapshot within them is bounded too
// (BenchmarkDrawWorstSnapshot, issue 32 item 9): the Pages pane works out
// a snapshot's byte runs, SGL items and line indexes once, in
// O(items log items) and never per byte; then a frame draws only the
// lines in view, each of at most a row of cells, plus a step for each
// page group and R/W context. Every other pane draws only its visible
// lines from lists of up to maxList elements. At these limits, on two
// busy cores, a frame after the first takes under 10 ms; the first, at
// maxItems pages or SGL entries, a few hundred ms once.
const (
	maxSnapshotFile = 16 << 20 // bytes of a snapshot file or a frame (a real one is under 1 MiB)
	maxItems        = 1 << 18  // list elements in a whole frame
	maxList         = 1 << 14  // elements of one list: pages, SGL entries, WRs, events…
	maxString       = 64 << 10 // bytes of one string
	maxNarration    = 1 << 20  // bytes of a lesson's text
	maxEventDepth   = 255      // call depth of an event
	maxPageSize     = 1 << 20
	maxPages        = 1 << 14 // rq_pages slots, rc_page_count
	maxEntries      = 1 << 14 // SGL entries (nents, first_sgl_nents)
	maxWQEs         = 1 << 22 // sc_sq_depth, sc_sq_avail, a chain's sqecount
	maxPosition     = 1 << 48 // reply positions, sc_post_seq, xpt_acked_pos
)

// validateFrame checks a decoded frame; snap is the JSON path of its
// snapshot ("snapshot." in a frame, "" in a bare snapshot file). The error
// names the field by its JSON path.
func validateFrame(f *Frame, snap string) error {
	items := 0
	if err := checkSizes(reflect.ValueOf(f.Snapshot), strings.TrimSuffix(snap, "."), &items); err != nil {
		return err
	}
	if err := checkSizes(reflect.ValueOf(f.Events), "events", &items); err != nil {
		return err
	}
	if len(f.Narration) > maxNarration {
		return fmt.Errorf("field narration: %d bytes, more than the %d a lesson's text may have", len(f.Narration), maxNarration)
	}
	for i := range f.Events {
		if err := checkEvent(&f.Events[i], fmt.Sprintf("events[%d].", i)); err != nil {
			return err
		}
	}
	return checkSnapshot(&f.Snapshot, snap)
}

// checkSizes bounds every string and list under v, and the elements of all
// lists together; path is v's JSON path. The paths of v's parts are
// written only for an error: a frame may hold maxItems of them.
func checkSizes(v reflect.Value, path string, items *int) error {
	if err := sizes(v, items); err != nil {
		return err.withPath(path)
	}
	return nil
}

// sizeError is a bound checkSizes found broken, and the path to it from
// the value checked, innermost part first.
type sizeError struct {
	parts []string
	msg   string
}

func (e *sizeError) in(part string) *sizeError { e.parts = append(e.parts, part); return e }

func (e *sizeError) withPath(root string) error {
	var b strings.Builder
	b.WriteString(root)
	for i := len(e.parts) - 1; i >= 0; i-- {
		p := e.parts[i]
		if !strings.HasPrefix(p, "[") && b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(p)
	}
	return fmt.Errorf("field %s: %s", b.String(), e.msg)
}

func sizes(v reflect.Value, items *int) *sizeError {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return nil
		}
		return sizes(v.Elem(), items)
	case reflect.String:
		if v.Len() > maxString {
			return &sizeError{msg: fmt.Sprintf("%d bytes, more than the %d a string may have", v.Len(), maxString)}
		}
	case reflect.Slice, reflect.Map:
		n := v.Len()
		if n > maxList {
			return &sizeError{msg: fmt.Sprintf("%d elements, more than the %d a list may have", n, maxList)}
		}
		if *items += n; *items > maxItems {
			return &sizeError{msg: fmt.Sprintf("more than %d list elements in all", maxItems)}
		}
		if v.Kind() == reflect.Map {
			it := v.MapRange()
			for it.Next() {
				err := sizes(it.Key(), items)
				if err == nil {
					err = sizes(it.Value(), items)
				}
				if err != nil {
					return err.in(fmt.Sprintf("[%v]", it.Key()))
				}
			}
			return nil
		}
		for i := range n {
			if err := sizes(v.Index(i), items); err != nil {
				return err.in(fmt.Sprintf("[%d]", i))
			}
		}
	case reflect.Struct:
		t := v.Type()
		for i := range t.NumField() {
			f := t.Field(i)
			if !f.IsExported() {
				continue
			}
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "-" {
				continue
			}
			if name == "" {
				name = f.Name
			}
			if err := sizes(v.Field(i), items); err != nil {
				return err.in(name)
			}
		}
	}
	return nil
}

// inRange reports a number outside lo..hi as an error naming its field.
func inRange[T int | int64 | uint64](path string, v, lo, hi T) error {
	if v < lo || v > hi {
		return fmt.Errorf("field %s: %d is out of range (%d..%d)", path, v, lo, hi)
	}
	return nil
}

// checks runs range checks in order and returns the first failure.
func checks(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

func checkEvent(e *trace.Event, p string) error {
	return inRange(p+"depth", e.Depth, 0, maxEventDepth)
}

// checkSnapshot checks the numbers the panes draw with; p is the JSON path
// prefix of the snapshot.
func checkSnapshot(s *snap.Snapshot, p string) error {
	ps := s.Settings.PageSize
	if err := inRange(p+"settings.page_size", ps, 0, maxPageSize); err != nil {
		return err
	}
	if ps == 0 {
		ps = maxPageSize // unknown: the view assumes 4096, any offset up to the limit draws
	}
	if s.LastEvent != nil {
		if err := checkEvent(s.LastEvent, p+"last_event."); err != nil {
			return err
		}
	}
	for i, t := range s.Threads {
		if err := checkPages(t.Pages, fmt.Sprintf("%sthreads[%d].pages", p, i), ps); err != nil {
			return err
		}
	}
	for i, rd := range s.Reads {
		q := fmt.Sprintf("%sreads[%d].", p, i)
		if err := checks(
			inRange(q+"rc_curpage", rd.CurPage, 0, maxPages),
			inRange(q+"rc_pageoff", rd.PageOff, 0, ps),
			inRange(q+"rc_page_count", rd.PageCount, 0, maxPages),
			inRange(q+"rc_readbytes", int64(rd.ReadBytes), 0, int64(maxPages)*int64(maxPageSize)),
			inRange(q+"cc_sqecount", rd.SQECount, 0, maxWQEs),
			checkPages(rd.Pages, q+"pages", ps),
			checkCtxts(rd.RWCtxts, q+"rw_ctxts", ps),
		); err != nil {
			return err
		}
	}
	if err := checkCtxts(s.RWCtxts.InUse, p+"rw_ctxts.in_use", ps); err != nil {
		return err
	}
	for i, c := range s.Chains {
		q := fmt.Sprintf("%schains[%d].", p, i)
		if err := checks(
			inRange(q+"sqecount", c.SQECount, 0, maxWQEs),
			inRange(q+"pos", c.Pos, 0, maxPosition),
		); err != nil {
			return err
		}
		for j, w := range c.WRs {
			if sgesOK(w.SGEs, ps) {
				continue
			}
			if err := checkSGEs(w.SGEs, fmt.Sprintf("%swrs[%d].sges", q, j), ps); err != nil {
				return err
			}
		}
	}
	q := p + "sq."
	if err := checks(
		inRange(q+"sc_sq_depth", s.SQ.Depth, 0, maxWQEs),
		inRange(q+"sc_sq_avail", s.SQ.Avail, -maxWQEs, maxWQEs),
		inRange(q+"sq_starve", s.SQ.Starve, 0, math.MaxInt),
	); err != nil {
		return err
	}
	q = p + "positions."
	if err := checks(
		inRange(q+"sc_post_seq", s.Positions.PostSeq, 0, maxPosition),
		inRange(q+"xpt_acked_pos", s.Positions.AckedPos, 0, maxPosition),
	); err != nil {
		return err
	}
	for i, r := range s.Positions.Replies {
		if r.Pos <= maxPosition {
			continue
		}
		if err := inRange(fmt.Sprintf("%sreplies[%d].pos", q, i), r.Pos, 0, maxPosition); err != nil {
			return err
		}
	}
	return nil
}

// extentOff and extentLen are the JSON names of snap.Extent's fields,
// for the paths errors name.
var extentOff, extentLen = jsonName(snap.Extent{}, "Off"), jsonName(snap.Extent{}, "Len")

// jsonName is the name field of v's struct type has in JSON.
func jsonName(v any, field string) string {
	f, ok := reflect.TypeOf(v).FieldByName(field)
	if !ok {
		return field
	}
	if name, _, _ := strings.Cut(f.Tag.Get("json"), ","); name != "" && name != "-" {
		return name
	}
	return field
}

// checkPages checks page slots and the byte ranges drawn in them.
func checkPages(pages []snap.Page, p string, ps int) error {
	for i, pg := range pages {
		if pageOK(pg, ps) {
			continue // the paths are written for an error only
		}
		q := fmt.Sprintf("%s[%d].", p, i)
		if err := inRange(q+"index", pg.Index, 0, maxPages-1); err != nil {
			return err
		}
		for j, e := range pg.Extents {
			r := fmt.Sprintf("%sextents[%d].", q, j)
			if err := checks(
				inRange(r+extentOff, e.Off, 0, ps),
				inRange(r+extentLen, e.Len, 0, ps-e.Off),
			); err != nil {
				return err
			}
		}
	}
	return nil
}

func checkCtxts(cs []snap.RWCtxt, p string, ps int) error {
	for i, c := range cs {
		if c.NEnts >= 0 && c.NEnts <= maxEntries && c.FirstSGLNents >= 0 && c.FirstSGLNents <= maxEntries && sgesOK(c.SGL, ps) {
			continue
		}
		q := fmt.Sprintf("%s[%d].", p, i)
		if err := checks(
			inRange(q+"nents", c.NEnts, 0, maxEntries),
			inRange(q+"first_sgl_nents", c.FirstSGLNents, 0, maxEntries),
			checkSGEs(c.SGL, q+"sgl", ps),
		); err != nil {
			return err
		}
	}
	return nil
}

func checkSGEs(sges []snap.SGE, p string, ps int) error {
	for i, e := range sges {
		if sgesOK(sges[i:i+1], ps) {
			continue
		}
		q := fmt.Sprintf("%s[%d].", p, i)
		if err := checks(
			inRange(q+"off", e.Off, 0, ps),
			inRange(q+"len", e.Len, 0, ps),
		); err != nil {
			return err
		}
	}
	return nil
}

// pageOK is checkPages' test of one page, without the paths.
func pageOK(pg snap.Page, ps int) bool {
	if pg.Index < 0 || pg.Index > maxPages-1 {
		return false
	}
	for _, e := range pg.Extents {
		if e.Off < 0 || e.Off > ps || e.Len < 0 || e.Len > ps-e.Off {
			return false
		}
	}
	return true
}

// sgesOK is checkSGEs' test, without the paths.
func sgesOK(sges []snap.SGE, ps int) bool {
	for _, e := range sges {
		if e.Off < 0 || e.Off > ps || e.Len < 0 || e.Len > ps {
			return false
		}
	}
	return true
}
