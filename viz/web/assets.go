package web

import (
	"embed"
	"html/template"
	"net/http"
)

//go:embed assets
var assets embed.FS

// asset serves one embedded file.
func asset(name, ctype string) http.HandlerFunc {
	b, err := assets.ReadFile("assets/" + name)
	if err != nil {
		panic(err) // embedded at build time: cannot be missing
	}
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", ctype)
		_, _ = w.Write(b)
	}
}

// liveHTML marks a body the server rendered itself (every string in
// it escaped by the body template) as safe to place in the page.
func liveHTML(b []byte) pageData { return pageData{Live: template.HTML(b)} }

// pageData is the page shell's data: the live part, already rendered.
type pageData struct {
	Live   template.HTML
	Browse template.HTML // what the request asked of the capture (browse.go)
}
