package viz

import (
	"context"
	"slices"
	"sync"
)

// Filterer is a PacketSource whose packets a display filter can select
// (the filter bar, /): CaptureSource is one.
type Filterer interface {
	// CheckFilter compiles expr and returns its mistake, or nil; a
	// *dfilter.Error names the column.
	CheckFilter(expr string) error
	// Select starts looking for the packets expr passes, in the
	// background; wake is called (from any goroutine, it must not block)
	// as matches come in and once at the end. Stop the Selection when done
	// with it.
	Select(expr string, wake func()) (*Selection, error)
}

// FieldNamer is a Filterer that lists the field names its filters know,
// for Tab in the bar (sorted).
type FieldNamer interface {
	FieldNames() []string
}

// Selection is the packets a display filter passes, found by a goroutine
// that goes through the capture as far as it is indexed and waits for
// more while indexing goes on: the view draws the matches found so far.
type Selection struct {
	expr   string
	means  string // the display filter expr's short forms mean; "" for a display filter
	cancel context.CancelFunc
	ended  chan struct{}

	mu      sync.Mutex
	rows    []int32 // the packets passed, in order; only ever appended to
	scanned int     // packets looked at
	done    bool    // every packet of the capture looked at, or err
	err     error   // why the search stopped early
}

// SelectionState is what a Selection has found so far.
type SelectionState struct {
	Rows    []int32 // the packets passed, in order (shared: do not modify)
	Scanned int     // packets looked at
	Done    bool    // all of them: Rows is final
	Err     error   // why the search stopped before the end
}

// finish ends the search: every packet looked at, or err.
func (s *Selection) finish(err error) {
	s.mu.Lock()
	s.done, s.err = true, err
	s.mu.Unlock()
}

// Expr is the filter's expression.
func (s *Selection) Expr() string { return s.expr }

// Means is the display filter Expr's short forms (qp=17, anomalies) mean,
// or "" when Expr is a display filter.
func (s *Selection) Means() string { return s.means }

// said is Expr as the status line says it: with what short forms mean.
func (s *Selection) said() string {
	if s.means == "" {
		return s.expr
	}
	return s.expr + " (" + s.means + ")"
}

// State is what the search has found so far.
func (s *Selection) State() SelectionState {
	s.mu.Lock()
	defer s.mu.Unlock()
	return SelectionState{Rows: s.rows[:len(s.rows):len(s.rows)], Scanned: s.scanned, Done: s.done, Err: s.err}
}

// Stop ends the search and waits for its goroutine.
func (s *Selection) Stop() {
	s.cancel()
	<-s.ended
}

// Wait waits until the search is over (or stopped), or ctx ends.
func (s *Selection) Wait(ctx context.Context) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-s.ended:
		return nil
	}
}

// at is the position in rows of the first packet at or after i.
func at(rows []int32, i int) int {
	k, _ := slices.BinarySearch(rows, int32(i))
	return k
}

// step is the packet delta rows away from sel among rows: the next or
// previous match, a page of them, the first or the last. A sel that is
// not a match counts as sitting between its neighbours.
func step(rows []int32, sel, delta int) (int, bool) {
	if len(rows) == 0 {
		return sel, false
	}
	k := at(rows, sel)
	switch {
	case delta > 0 && (k == len(rows) || int(rows[k]) != sel):
		k += delta - 1
	default:
		k += delta
	}
	k = min(max(k, 0), len(rows)-1)
	return int(rows[k]), true
}

// nearest is the match nearest to sel, the earlier on a tie; known says
// whether it is settled: while the search goes on, a match not yet found
// after sel could be nearer.
func nearest(st SelectionState, sel int) (p int, known bool) {
	k := at(st.Rows, sel)
	switch {
	case k < len(st.Rows) && int(st.Rows[k]) == sel:
		return sel, true
	case k < len(st.Rows):
		if k > 0 && sel-int(st.Rows[k-1]) <= int(st.Rows[k])-sel {
			return int(st.Rows[k-1]), true
		}
		return int(st.Rows[k]), true
	case len(st.Rows) == 0:
		return 0, false
	}
	last := int(st.Rows[len(st.Rows)-1])
	if !st.Done && st.Scanned-sel < sel-last {
		return 0, false
	}
	return last, true
}
