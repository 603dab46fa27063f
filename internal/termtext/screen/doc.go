// Package screen owns the scrollback model of a terminal that streams a
// command's output: it parses the bytes a program writes (UTF-8, SGR colours,
// carriage-return rewrites, the cursor and erase sequences progress bars use),
// keeps a bounded ring of logical lines made of styled cells, and renders the
// bottom of that history wrapped to any width, so a resize re-wraps instead of
// corrupting. Only text and the styles it parsed itself ever leave it: every
// other escape sequence in untrusted output is dropped. A switch to the
// alternate screen (a full-screen program starting) stops the parse and is
// reported to the caller, who hands that program the real terminal; Frame
// plays on past it instead, for a reader who was not watching (a tool
// result), and returns the program's last frame as rows of text.
package screen
