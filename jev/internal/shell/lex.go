package shell

import "strings"

type tokenKind uint8

const (
	wordToken tokenKind = iota
	opToken
)

// token is a word (quotes removed) or an operator. Redirection operators
// carry the file descriptor written before them ("2" in `2>&1`).
type token struct {
	kind   tokenKind
	text   string
	quoted bool // the word had quotes or escapes, so it is never a reserved word
	assign bool // NAME=value with an unquoted name
	fd     string
}

type heredoc struct {
	delim     string
	stripTabs bool
}

// lexer splits a command line into tokens. Here-document bodies are skipped:
// they are input, not commands.
type lexer struct {
	src       string
	pos       int
	tokens    []token
	wantDelim []bool // heredoc operators whose delimiter word comes next (stripTabs)
	pending   []heredoc
}

func lex(src string) []token {
	l := &lexer{src: src}
	l.run()
	return l.tokens
}

func (l *lexer) peekAt(off int) byte {
	if l.pos+off < len(l.src) {
		return l.src[l.pos+off]
	}
	return 0
}

func (l *lexer) emitOp(op string, fd string) {
	l.tokens = append(l.tokens, token{kind: opToken, text: op, fd: fd})
	if op == "<<" || op == "<<-" {
		l.wantDelim = append(l.wantDelim, op == "<<-")
	}
}

func (l *lexer) emitWord(t token) {
	l.tokens = append(l.tokens, t)
	if len(l.wantDelim) > 0 {
		l.pending = append(l.pending, heredoc{delim: t.text, stripTabs: l.wantDelim[0]})
		l.wantDelim = l.wantDelim[1:]
	}
}

func (l *lexer) run() {
	for l.pos < len(l.src) {
		c := l.src[l.pos]
		switch {
		case c == ' ' || c == '\t' || c == '\r':
			l.pos++
		case c == '\\' && l.peekAt(1) == '\n':
			l.pos += 2
		case c == '\n':
			l.pos++
			l.emitOp("\n", "")
			l.skipHeredocBodies()
		case c == '#':
			for l.pos < len(l.src) && l.src[l.pos] != '\n' {
				l.pos++
			}
		case c == ';':
			if l.peekAt(1) == ';' || l.peekAt(1) == '&' {
				l.pos += 2
				if l.peekAt(0) == '&' { // ;;&
					l.pos++
				}
				l.emitOp(";;", "")
			} else {
				l.pos++
				l.emitOp(";", "")
			}
		case c == '&':
			switch {
			case l.peekAt(1) == '&':
				l.pos += 2
				l.emitOp("&&", "")
			case l.peekAt(1) == '>' && l.peekAt(2) == '>':
				l.pos += 3
				l.emitOp("&>>", "")
			case l.peekAt(1) == '>':
				l.pos += 2
				l.emitOp("&>", "")
			default:
				l.pos++
				l.emitOp("&", "")
			}
		case c == '|':
			switch l.peekAt(1) {
			case '|':
				l.pos += 2
				l.emitOp("||", "")
			case '&':
				l.pos += 2
				l.emitOp("|&", "")
			default:
				l.pos++
				l.emitOp("|", "")
			}
		case c == '(' && l.peekAt(1) == '(':
			// Arithmetic command or C-style for header: one word.
			start := l.pos
			l.pos = skipBalanced(l.src, l.pos, '(', ')')
			l.emitWord(token{kind: wordToken, text: l.src[start:l.pos], quoted: true})
		case c == '(':
			l.pos++
			l.emitOp("(", "")
		case c == ')':
			l.pos++
			l.emitOp(")", "")
		case (c == '<' || c == '>') && l.peekAt(1) == '(':
			l.readWord() // process substitution
		case c == '<' || c == '>':
			l.readRedirect("")
		default:
			l.readWord()
		}
	}
}

// readRedirect reads a redirection operator at l.pos.
func (l *lexer) readRedirect(fd string) {
	for _, op := range []string{"<<<", "<<-", "&>>", "<<", "<>", "<&", ">>", ">|", ">&", "<", ">"} {
		if strings.HasPrefix(l.src[l.pos:], op) {
			l.pos += len(op)
			l.emitOp(op, fd)
			return
		}
	}
	l.pos++
}

func isMeta(c byte) bool {
	switch c {
	case ' ', '\t', '\r', '\n', ';', '&', '|', '(', ')', '<', '>':
		return true
	}
	return false
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

func isName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (i > 0 && c >= '0' && c <= '9') {
			continue
		}
		return false
	}
	return true
}

// readWord reads one word, removing quotes and escapes but keeping
// substitutions ($(…), `…`, ${…}, <(…)) as written.
func (l *lexer) readWord() {
	var b strings.Builder
	t := token{kind: wordToken}
	for l.pos < len(l.src) {
		c := l.src[l.pos]
		if (c == '<' || c == '>') && l.peekAt(1) == '(' {
			start := l.pos
			l.pos = skipBalanced(l.src, l.pos+1, '(', ')')
			b.WriteString(l.src[start:l.pos])
			continue
		}
		if c == '(' && t.assign && strings.HasSuffix(b.String(), "=") {
			// name=(a b c): an array, one word.
			start := l.pos
			l.pos = skipBalanced(l.src, l.pos, '(', ')')
			b.WriteString(l.src[start:l.pos])
			continue
		}
		if isMeta(c) {
			if (c == '<' || c == '>') && !t.quoted && isDigits(b.String()) {
				// "2>" — the digits name a file descriptor, not a word.
				l.readRedirect(b.String())
				return
			}
			break
		}
		switch c {
		case '\'':
			t.quoted = true
			end := strings.IndexByte(l.src[l.pos+1:], '\'')
			if end < 0 {
				b.WriteString(l.src[l.pos+1:])
				l.pos = len(l.src)
			} else {
				b.WriteString(l.src[l.pos+1 : l.pos+1+end])
				l.pos += end + 2
			}
		case '"':
			t.quoted = true
			l.pos = readDoubleQuoted(l.src, l.pos+1, &b)
		case '\\':
			if l.peekAt(1) == '\n' {
				l.pos += 2
				continue
			}
			t.quoted = true
			if l.pos+1 < len(l.src) {
				b.WriteByte(l.src[l.pos+1])
			}
			l.pos += 2
		case '$':
			switch l.peekAt(1) {
			case '(':
				start := l.pos
				l.pos = skipBalanced(l.src, l.pos+1, '(', ')')
				b.WriteString(l.src[start:l.pos])
			case '{':
				start := l.pos
				l.pos = skipBalanced(l.src, l.pos+1, '{', '}')
				b.WriteString(l.src[start:l.pos])
			case '\'':
				t.quoted = true
				l.pos = readANSIQuoted(l.src, l.pos+2, &b)
			case '"':
				t.quoted = true
				l.pos = readDoubleQuoted(l.src, l.pos+2, &b)
			default:
				b.WriteByte(c)
				l.pos++
			}
		case '`':
			start := l.pos
			l.pos = skipBackquoted(l.src, l.pos+1)
			b.WriteString(l.src[start:l.pos])
		case '=':
			if !t.quoted && !t.assign && isName(b.String()) {
				t.assign = true
			}
			b.WriteByte(c)
			l.pos++
		default:
			b.WriteByte(c)
			l.pos++
		}
	}
	t.text = b.String()
	l.emitWord(t)
}

// readDoubleQuoted copies a "…" string starting after its opening quote and
// returns the position after the closing quote.
func readDoubleQuoted(src string, pos int, b *strings.Builder) int {
	for pos < len(src) {
		c := src[pos]
		switch {
		case c == '"':
			return pos + 1
		case c == '\\' && pos+1 < len(src):
			switch n := src[pos+1]; n {
			case '\n':
			case '"', '\\', '$', '`':
				b.WriteByte(n)
			default:
				b.WriteByte('\\')
				b.WriteByte(n)
			}
			pos += 2
		case c == '$' && pos+1 < len(src) && src[pos+1] == '(':
			end := skipBalanced(src, pos+1, '(', ')')
			b.WriteString(src[pos:end])
			pos = end
		case c == '`':
			end := skipBackquoted(src, pos+1)
			b.WriteString(src[pos:end])
			pos = end
		default:
			b.WriteByte(c)
			pos++
		}
	}
	return pos
}

// readANSIQuoted copies a $'…' string starting after its opening quote.
func readANSIQuoted(src string, pos int, b *strings.Builder) int {
	for pos < len(src) {
		c := src[pos]
		if c == '\'' {
			return pos + 1
		}
		if c == '\\' && pos+1 < len(src) {
			switch n := src[pos+1]; n {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case 'r':
				b.WriteByte('\r')
			case 'e', 'E':
				b.WriteByte(0x1b)
			default:
				b.WriteByte(n)
			}
			pos += 2
			continue
		}
		b.WriteByte(c)
		pos++
	}
	return pos
}

// skipBalanced returns the position just after the bracket that closes the
// one at pos, skipping quoted text. An unclosed bracket runs to the end.
func skipBalanced(src string, pos int, open, closing byte) int {
	depth := 0
	for pos < len(src) {
		c := src[pos]
		switch {
		case c == '\\':
			pos += 2
			continue
		case c == '\'' && open == '(':
			end := strings.IndexByte(src[pos+1:], '\'')
			if end < 0 {
				return len(src)
			}
			pos += end + 2
			continue
		case c == '"':
			var discard strings.Builder
			pos = readDoubleQuoted(src, pos+1, &discard)
			continue
		case c == open:
			depth++
		case c == closing:
			depth--
			if depth == 0 {
				return pos + 1
			}
		}
		pos++
	}
	return len(src)
}

func skipBackquoted(src string, pos int) int {
	for pos < len(src) {
		switch src[pos] {
		case '\\':
			pos += 2
			continue
		case '`':
			return pos + 1
		}
		pos++
	}
	return len(src)
}

// skipHeredocBodies skips the bodies of the here-documents opened on the
// line just ended, each up to its delimiter line.
func (l *lexer) skipHeredocBodies() {
	for _, h := range l.pending {
		for l.pos < len(l.src) {
			end := strings.IndexByte(l.src[l.pos:], '\n')
			var line string
			if end < 0 {
				line = l.src[l.pos:]
				l.pos = len(l.src)
			} else {
				line = l.src[l.pos : l.pos+end]
				l.pos += end + 1
			}
			if h.stripTabs {
				line = strings.TrimLeft(line, "\t")
			}
			if strings.TrimRight(line, "\r") == h.delim {
				break
			}
		}
	}
	l.pending = l.pending[:0]
	l.wantDelim = l.wantDelim[:0]
}
