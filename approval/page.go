package approval

import (
	"crypto/sha256"
	"encoding/base64"
	"html/template"
	"strings"
)

// style is the page's only styling, inline and allowed by its hash in the
// Content-Security-Policy, so the page needs nothing else from anywhere.
const style = `
:root { color-scheme: light dark; font-family: system-ui, sans-serif; line-height: 1.45; }
body { margin: 0; padding: 1.5rem 1rem; }
main { max-width: 40rem; margin: 0 auto; }
h1 { font-size: 1.5rem; margin: 0 0 .5rem; }
h2 { font-size: 1.05rem; margin: 1.25rem 0 .35rem; }
.meta { color: GrayText; margin: 0 0 1rem; font-size: .95rem; }
pre { white-space: pre-wrap; overflow-wrap: anywhere; background: rgba(127,127,127,.12); padding: .75rem; border-radius: .4rem; font-size: .9rem; max-height: 24rem; overflow: auto; }
label { display: block; font-weight: 600; margin: 1.25rem 0 .35rem; }
textarea { width: 100%; box-sizing: border-box; font: inherit; padding: .5rem; border-radius: .4rem; border: 1px solid GrayText; }
.buttons { display: flex; flex-wrap: wrap; gap: .75rem; margin-top: 1rem; border: 0; padding: 0; }
.buttons legend { font-weight: 600; padding: 0; margin-bottom: .35rem; }
button { font: inherit; font-weight: 600; padding: .6rem 1.4rem; border-radius: .4rem; border: 2px solid ButtonText; background: ButtonFace; color: ButtonText; cursor: pointer; }
button.first { background: #1a5fb4; border-color: #1a5fb4; color: #fff; }
button:focus-visible, textarea:focus-visible { outline: 3px solid #e66100; outline-offset: 2px; }
.decision { font-size: 1.2rem; font-weight: 700; }
.note { border-left: 4px solid #c01c28; padding: .25rem .75rem; }
`

// csp allows the inline style by its hash and nothing else: no script, no
// image, no frame, forms only to this page.
var csp = "default-src 'none'; style-src '" + styleHash() + "'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"

func styleHash() string {
	sum := sha256.Sum256([]byte(style))
	return "sha256-" + base64.StdEncoding.EncodeToString(sum[:])
}

// pageData is everything a page shows; html/template escapes all of it
// (the question, details and options are the agent's text, the comment a
// stranger's).
type pageData struct {
	Title     string
	Heading   string
	Question  string
	Details   string
	Options   []string
	Nonce     string
	Comment   string // kept when a form is shown again
	Expires   string // "Tue 1 Dec 2026 21:30 UTC"
	ExpiresIn string // "in 23h59m"
	ExpiresAt string // RFC 3339, for <time datetime>
	Note      string // why this page is shown instead of the form or the result
	Decided   *decided
	Form      bool
}

type decided struct {
	Choice, Comment, At string
}

var pageTmpl = template.Must(template.New("page").Funcs(template.FuncMap{
	"first": func(i int) bool { return i == 0 },
}).Parse(strings.Replace(`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>{{.Title}}</title>
<style>STYLE</style>
</head>
<body>
<main>
<h1>{{.Heading}}</h1>
{{- if .Note}}
<p class="note" role="alert">{{.Note}}</p>
{{- end}}
{{- if .Question}}
{{- if ne .Heading .Question}}
<h2>Question</h2>
<p>{{.Question}}</p>
{{- end}}
{{- end}}
{{- if .Expires}}
<p class="meta">Asked by an agent through hangdog. This link expires <time datetime="{{.ExpiresAt}}">{{.Expires}}</time> ({{.ExpiresIn}}).</p>
{{- end}}
{{- if .Details}}
<h2>Details</h2>
<pre>{{.Details}}</pre>
{{- end}}
{{- with .Decided}}
<h2>Decision</h2>
<p class="decision">{{.Choice}}</p>
<p class="meta">Decided {{.At}}.</p>
{{- if .Comment}}
<h2>Comment</h2>
<pre>{{.Comment}}</pre>
{{- end}}
{{- end}}
{{- if .Form}}
<form method="post" action="">
<input type="hidden" name="nonce" value="{{.Nonce}}">
<label for="comment">Comment (optional)</label>
<textarea id="comment" name="comment" rows="4" maxlength="2000" aria-describedby="comment-help">{{.Comment}}</textarea>
<p id="comment-help" class="meta">Sent with your decision to the agent, as text it must not take as instructions.</p>
<fieldset class="buttons">
<legend>Your decision</legend>
{{- range $i, $o := .Options}}
<button type="submit" name="decision" value="{{$o}}"{{if first $i}} class="first"{{end}}>{{$o}}</button>
{{- end}}
</fieldset>
</form>
{{- end}}
</main>
</body>
</html>
`, "STYLE", style, 1)))
