package screen

import (
	"strconv"
	"strings"
)

// color is 0 for the terminal default, 1..256 for palette index+1, or
// rgbFlag|0xRRGGBB for a 24-bit colour.
type color uint32

const rgbFlag color = 1 << 31

// Attribute bits of a style.
const (
	attrBold uint8 = 1 << iota
	attrFaint
	attrItalic
	attrUnderline
	attrBlink
	attrReverse
	attrHidden
	attrStrike
)

// style is what SGR sets; cells refer to interned styles by index.
type style struct {
	fg, bg color
	attrs  uint8
}

// maxStyles bounds the style table so hostile output cannot grow it without
// limit; styles past it render as the default.
const maxStyles = 4096

// applySGR updates st from the parameters of one SGR sequence (the bytes
// between CSI and 'm'). Colon sub-parameters ("4:3", "38:2::R:G:B") belong to
// the parameter before them, as ECMA-48 says.
func applySGR(st style, params []byte) style {
	groups := parseGroups(params)
	if len(groups) == 0 {
		return style{}
	}
	for i := 0; i < len(groups); i++ {
		g := groups[i]
		n := g[0]
		switch {
		case n == 0:
			st = style{}
		case n == 1:
			st.attrs |= attrBold
		case n == 2:
			st.attrs |= attrFaint
		case n == 3:
			st.attrs |= attrItalic
		case n == 4 && len(g) > 1 && g[1] == 0:
			st.attrs &^= attrUnderline
		case n == 4 || n == 21:
			st.attrs |= attrUnderline
		case n == 5 || n == 6:
			st.attrs |= attrBlink
		case n == 7:
			st.attrs |= attrReverse
		case n == 8:
			st.attrs |= attrHidden
		case n == 9:
			st.attrs |= attrStrike
		case n == 22:
			st.attrs &^= attrBold | attrFaint
		case n == 23:
			st.attrs &^= attrItalic
		case n == 24:
			st.attrs &^= attrUnderline
		case n == 25:
			st.attrs &^= attrBlink
		case n == 27:
			st.attrs &^= attrReverse
		case n == 28:
			st.attrs &^= attrHidden
		case n == 29:
			st.attrs &^= attrStrike
		case n >= 30 && n <= 37:
			st.fg = color(n-30) + 1
		case n == 39:
			st.fg = 0
		case n >= 40 && n <= 47:
			st.bg = color(n-40) + 1
		case n == 49:
			st.bg = 0
		case n >= 90 && n <= 97:
			st.fg = color(n-90+8) + 1
		case n >= 100 && n <= 107:
			st.bg = color(n-100+8) + 1
		case n == 38 || n == 48 || n == 58:
			var c color
			if len(g) > 1 {
				c = extendedColor(g[1:])
			} else {
				// Semicolon form: the colour's parameters are the next groups.
				var rest []int
				for _, h := range groups[i+1:] {
					rest = append(rest, h[0])
				}
				var used int
				c, used = extendedColorSemicolon(rest)
				i += used
			}
			switch n {
			case 38:
				st.fg = c
			case 48:
				st.bg = c
			}
		}
	}
	return st
}

// extendedColor reads colon sub-parameters: "5:N", "2:R:G:B" or "2:ID:R:G:B".
func extendedColor(sub []int) color {
	switch {
	case len(sub) >= 2 && sub[0] == 5 && sub[1] >= 0 && sub[1] <= 255:
		return color(sub[1]) + 1
	case len(sub) >= 5 && sub[0] == 2:
		return rgb(sub[2], sub[3], sub[4])
	case len(sub) == 4 && sub[0] == 2:
		return rgb(sub[1], sub[2], sub[3])
	}
	return 0
}

// extendedColorSemicolon reads "5;N" or "2;R;G;B" and says how many
// parameters it used.
func extendedColorSemicolon(rest []int) (color, int) {
	switch {
	case len(rest) >= 2 && rest[0] == 5:
		if rest[1] >= 0 && rest[1] <= 255 {
			return color(rest[1]) + 1, 2
		}
		return 0, 2
	case len(rest) >= 4 && rest[0] == 2:
		return rgb(rest[1], rest[2], rest[3]), 4
	}
	return 0, len(rest)
}

func rgb(r, g, b int) color {
	return rgbFlag | color(clampByte(r))<<16 | color(clampByte(g))<<8 | color(clampByte(b))
}

func clampByte(n int) int { return max(0, min(n, 255)) }

// parseGroups splits CSI parameters on ';' into groups, each a parameter
// followed by its ':' sub-parameters; an empty parameter is 0.
func parseGroups(p []byte) [][]int {
	if len(p) == 0 {
		return nil
	}
	var out [][]int
	cur := []int{}
	n := 0
	for _, b := range p {
		switch {
		case b >= '0' && b <= '9':
			if n < 1<<20 {
				n = n*10 + int(b-'0')
			}
		case b == ':':
			cur = append(cur, n)
			n = 0
		case b == ';':
			out = append(out, append(cur, n))
			cur, n = []int{}, 0
		}
	}
	return append(out, append(cur, n))
}

// sgr renders a style as one SGR sequence that starts from a reset.
func (st style) sgr(colors bool) string {
	if st == (style{}) {
		return "\x1b[0m"
	}
	var b strings.Builder
	b.WriteString("\x1b[0")
	for i, code := range [...]string{"1", "2", "3", "4", "5", "7", "8", "9"} {
		if st.attrs&(1<<i) != 0 {
			b.WriteByte(';')
			b.WriteString(code)
		}
	}
	if colors {
		writeColor(&b, st.fg, 30, 90, 38)
		writeColor(&b, st.bg, 40, 100, 48)
	}
	b.WriteByte('m')
	return b.String()
}

func writeColor(b *strings.Builder, c color, base, bright, ext int) {
	switch {
	case c == 0:
	case c&rgbFlag != 0:
		b.WriteString(";" + strconv.Itoa(ext) + ";2;")
		b.WriteString(strconv.Itoa(int(c>>16&0xff)) + ";" + strconv.Itoa(int(c>>8&0xff)) + ";" + strconv.Itoa(int(c&0xff)))
	case c <= 8:
		b.WriteString(";" + strconv.Itoa(base+int(c)-1))
	case c <= 16:
		b.WriteString(";" + strconv.Itoa(bright+int(c)-9))
	default:
		b.WriteString(";" + strconv.Itoa(ext) + ";5;" + strconv.Itoa(int(c)-1))
	}
}
