package snap

// Lesson is where a paced lesson stands, for the views: the step, its
// command and text, and each check's verdict of the last step, as data,
// so a view draws them without reading a narration's text back.
type Lesson struct {
	Name      string `json:"name"`
	Title     string `json:"title"`
	Step      int    `json:"step"` // from 1
	Steps     int    `json:"steps"`
	Command   string `json:"command"`
	Narration string `json:"narration"` // plain text, paragraphs split by blank lines
	// Last is how the step before went (nil before the first ran).
	Last *StepResult `json:"last,omitempty"`
	// Ended is the closing summary once the lesson is over ("" while it
	// runs), and Outro the lesson's last words.
	Ended string `json:"ended,omitempty"`
	Outro string `json:"outro,omitempty"`
}

// StepResult is one step's command and what its checks found.
type StepResult struct {
	Command  string    `json:"command"`
	Verdicts []Verdict `json:"verdicts"`
}

// Verdict is one check of a step: whether it held, and what it says.
type Verdict struct {
	OK  bool   `json:"ok"`
	Say string `json:"say"`
}
