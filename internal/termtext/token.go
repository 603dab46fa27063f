package termtext

import "unicode/utf8"

// The one tokenizer of terminal output: the log's plain-text Writer and the
// shell's screen (termtext/screen) both read a program's bytes through it,
// each acting on the tokens in its own way. It follows the VT500 parser's
// states (ground, escape, CSI, control strings) with the liberties a reader
// of untrusted output needs: a byte ≥ 0x80 abandons an escape sequence and
// is read as text, C0 controls inside a sequence still act, CAN and SUB
// cancel one, ESC starts a new one (also inside a string, where ESC \ is
// its end). Sequences and characters split across calls are carried over.

// Kind says what a Token is.
type Kind uint8

const (
	// KindNone: the bytes consumed were part of a sequence not yet ended,
	// or a sequence that means nothing to a reader (a string, an over-long
	// CSI), or a C1 control character.
	KindNone Kind = iota
	// KindText: a run of printable ASCII (0x20–0x7E), in Token.Text.
	KindText
	// KindRune: one character ≥ U+00A0, in Token.Rune.
	KindRune
	// KindInvalid: Token.N bytes that are not UTF-8: a lone byte, or the
	// start of a character cut short (the longest prefix that was valid).
	// A consumer shows U+FFFD for it, once or per byte.
	KindInvalid
	// KindControl: a C0 control character or DEL, in Token.Final (never
	// ESC, which starts a sequence).
	KindControl
	// KindEsc: ESC followed by Token.Inter (0 when none) and Token.Final.
	KindEsc
	// KindCSI: a control sequence: Token.Private ('?', '>', '<', '=' or
	// 0), Token.Params, Token.Inter (the last intermediate byte, 0 when
	// none) and Token.Final.
	KindCSI
)

// maxParamBytes is how many CSI parameter bytes are kept; a longer sequence
// is still removed, just not reported.
const maxParamBytes = 64

type tokState uint8

const (
	tsGround    tokState = iota
	tsEscape             // after ESC
	tsEscInter           // ESC then 0x20–0x2F bytes (charset selection and the like)
	tsCSI                // ESC [
	tsString             // OSC, DCS, SOS, PM or APC body: ends at BEL or ST
	tsStringEsc          // ESC inside a string: ST if '\' follows
)

// Token is one thing a terminal would act on: the fields its Kind names
// are set, the others are stale. Text and Params point into the input or
// the Tokenizer, valid until its next call.
type Token struct {
	Text    []byte
	Rune    rune
	N       int
	Private byte
	Params  []byte
	Inter   byte
	Final   byte
}

// Tokenizer splits terminal output into tokens. Its zero value is ready,
// for a stream read as a terminal reads it; it is not safe for concurrent
// use.
type Tokenizer struct {
	// NewlineEndsString makes a newline end an unterminated OSC or DCS
	// string (it is then reported as a KindControl), so that in a log an
	// unterminated title or hyperlink cannot hide everything after it.
	NewlineEndsString bool

	state    tokState
	private  byte
	inter    byte
	params   [maxParamBytes]byte
	nparams  int
	overflow bool

	utf8  [utf8.UTFMax]byte
	nutf8 int

	// tok is the last token; Next returns only its kind, so the hot loop
	// copies no struct.
	tok Token
}

// Token is the token the last Next returned.
func (t *Tokenizer) Token() *Token { return &t.tok }

// Reset returns to the ground state and reports how many bytes of an
// unfinished character it dropped (a consumer may show them as U+FFFD).
func (t *Tokenizer) Reset() (dropped int) {
	dropped = t.nutf8
	keep := t.NewlineEndsString
	*t = Tokenizer{NewlineEndsString: keep}
	return dropped
}

// Ground says no escape sequence or string is under way (a character may
// be: Reset drops it).
func (t *Tokenizer) Ground() bool { return t.state == tsGround }

// Between says the tokenizer is between tokens in its ground state, where
// a control character other than ESC is a KindControl token by itself: a
// consumer's hot loop may act on one (a newline) without calling Next.
func (t *Tokenizer) Between() bool { return t.state == tsGround && t.nutf8 == 0 }

// Next reads the next token from p and returns its kind (Token has the
// rest) and the number of bytes it consumed. It may consume nothing when it
// reports a character held from earlier calls invalid, or abandons a
// sequence for a byte it then reads as text. At the end of p the kind may
// be KindNone: a sequence goes on in the next call. p must not be empty.
func (t *Tokenizer) Next(p []byte) (Kind, int) {
	if t.Between() {
		// The fast path: a run of printable ASCII, or a control
		// character, the bulk of any output.
		if b := p[0]; b >= 0x20 && b < 0x7f {
			return KindText, t.text(p)
		} else if b < 0x20 && b != 0x1b {
			t.tok.Final = b
			return KindControl, 1
		}
	}
	i := 0
	for i < len(p) {
		b := p[i]
		switch t.state {
		case tsGround:
			if t.nutf8 > 0 || b >= utf8.RuneSelf {
				k, used := t.utf8Byte(b)
				if used {
					i++
				}
				if k != KindNone || i == len(p) {
					return k, i
				}
				continue
			}
			if b >= 0x20 && b < 0x7f {
				if i > 0 {
					return KindNone, i
				}
				return KindText, t.text(p)
			}
			if b == 0x1b {
				t.state = tsEscape
				i++
				continue
			}
			t.tok.Final = b
			return KindControl, i + 1
		case tsEscape:
			i++
			switch {
			case b == '[':
				t.state = tsCSI
				t.private, t.inter, t.nparams, t.overflow = 0, 0, 0, false
			case b == ']' || b == 'P' || b == 'X' || b == '^' || b == '_':
				t.state = tsString // OSC, DCS, SOS, PM, APC
			case b >= 0x20 && b <= 0x2f:
				t.state = tsEscInter
				t.inter = b
			case b >= 0x30 && b <= 0x7e:
				t.state = tsGround
				t.tok.Inter, t.tok.Final = 0, b
				return KindEsc, i
			default:
				if k, reread := t.inSequence(b); reread {
					return KindNone, i - 1 // read it again as text
				} else if k != KindNone {
					return k, i
				}
			}
		case tsEscInter:
			i++
			switch {
			case b >= 0x20 && b <= 0x2f:
				t.inter = b
			case b >= 0x30 && b <= 0x7e:
				t.state = tsGround
				t.tok.Inter, t.tok.Final = t.inter, b
				return KindEsc, i
			default:
				if k, reread := t.inSequence(b); reread {
					return KindNone, i - 1 // read it again as text
				} else if k != KindNone {
					return k, i
				}
			}
		case tsCSI:
			i++
			switch {
			case b >= 0x30 && b <= 0x3f:
				switch {
				case t.nparams == 0 && b >= 0x3c && t.private == 0 && !t.overflow:
					t.private = b
				case t.nparams < maxParamBytes:
					t.params[t.nparams] = b
					t.nparams++
				default:
					t.overflow = true
				}
			case b >= 0x20 && b <= 0x2f:
				t.inter = b
			case b >= 0x40 && b <= 0x7e:
				t.state = tsGround
				if t.overflow {
					return KindNone, i
				}
				t.tok.Private, t.tok.Params, t.tok.Inter, t.tok.Final = t.private, t.params[:t.nparams], t.inter, b
				return KindCSI, i
			default:
				if k, reread := t.inSequence(b); reread {
					return KindNone, i - 1 // read it again as text
				} else if k != KindNone {
					return k, i
				}
			}
		case tsString:
			i++
			switch b {
			case 0x07, 0x18, 0x1a:
				t.state = tsGround
				return KindNone, i
			case 0x1b:
				t.state = tsStringEsc
			case '\n':
				if t.NewlineEndsString {
					t.state = tsGround
					t.tok.Final = b
					return KindControl, i
				}
			}
		case tsStringEsc:
			if b == '\\' {
				t.state = tsGround
				return KindNone, i + 1
			}
			// Not ST: the ESC begins a new sequence.
			t.state = tsEscape
		}
	}
	return KindNone, i
}

// text takes the run of printable ASCII p starts with.
func (t *Tokenizer) text(p []byte) int {
	j := 1
	for j < len(p) && p[j] >= 0x20 && p[j] < 0x7f {
		j++
	}
	t.tok.Text = p[:j]
	return j
}

// inSequence handles a byte that cannot continue the current escape
// sequence: a C0 control acts (its token), CAN and SUB cancel the sequence,
// ESC starts a new one, DEL is ignored. A byte ≥ 0x80 belongs to no 7-bit
// sequence: the sequence is abandoned and the caller reads the byte again
// as text (reread).
func (t *Tokenizer) inSequence(b byte) (k Kind, reread bool) {
	switch {
	case b == 0x1b:
		t.state = tsEscape
	case b == 0x18 || b == 0x1a:
		t.state = tsGround
	case b < 0x20:
		t.tok.Final = b
		return KindControl, false
	case b == 0x7f:
	default:
		t.state = tsGround
		return KindNone, true
	}
	return KindNone, false
}

// utf8Byte takes one byte of a multi-byte character. used is false when the
// byte was not taken: the character held so far is reported invalid, and
// the byte is read again on its own.
func (t *Tokenizer) utf8Byte(b byte) (k Kind, used bool) {
	if t.nutf8 > 0 && !continues(t.utf8[0], t.nutf8, b) {
		t.tok.N = t.nutf8
		t.nutf8 = 0
		return KindInvalid, false
	}
	if t.nutf8 == 0 && (b < 0xc2 || b > 0xf4) {
		t.tok.N = 1
		return KindInvalid, true
	}
	t.utf8[t.nutf8] = b
	t.nutf8++
	if !utf8.FullRune(t.utf8[:t.nutf8]) {
		return KindNone, true
	}
	r, _ := utf8.DecodeRune(t.utf8[:t.nutf8])
	t.nutf8 = 0
	if r < 0xa0 {
		return KindNone, true // C1 control characters have no text meaning
	}
	t.tok.Rune = r
	return KindRune, true
}

// continues says b can be byte k (k ≥ 1) of a character whose first byte is
// lead: a continuation byte, in the narrower range some leads allow for
// their second byte (no overlong forms, no surrogates, nothing past
// U+10FFFF).
func continues(lead byte, k int, b byte) bool {
	lo, hi := byte(0x80), byte(0xbf)
	if k == 1 {
		switch lead {
		case 0xe0:
			lo = 0xa0
		case 0xed:
			hi = 0x9f
		case 0xf0:
			lo = 0x90
		case 0xf4:
			hi = 0x8f
		}
	}
	return b >= lo && b <= hi
}
