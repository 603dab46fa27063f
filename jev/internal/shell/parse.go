package shell

import "strings"

// maxDepth bounds nesting so a hostile command line cannot exhaust the stack.
const maxDepth = 64

// Parse reads a command line into a List. It never fails: tokens it cannot
// place are skipped, and an unterminated quote or loop runs to the end.
func Parse(src string) List {
	p := &parser{tokens: lex(src)}
	var out List
	for !p.eof() {
		l := p.parseList(nil)
		out.Pipelines = append(out.Pipelines, l.Pipelines...)
		if !p.eof() {
			p.i++ // a stray `)`, `;;` or reserved word: skip it
		}
	}
	return out
}

type parser struct {
	tokens []token
	i      int
	depth  int
}

func (p *parser) eof() bool { return p.i >= len(p.tokens) }

func (p *parser) peek() token {
	if p.eof() {
		return token{kind: opToken}
	}
	return p.tokens[p.i]
}

func (p *parser) atOp(ops ...string) bool {
	t := p.peek()
	if p.eof() || t.kind != opToken {
		return false
	}
	for _, op := range ops {
		if t.text == op {
			return true
		}
	}
	return false
}

// atReserved reports whether the next token is one of the given reserved
// words (unquoted).
func (p *parser) atReserved(words ...string) bool {
	t := p.peek()
	if p.eof() || t.kind != wordToken || t.quoted {
		return false
	}
	for _, w := range words {
		if t.text == w {
			return true
		}
	}
	return false
}

func (p *parser) expectReserved(w string) {
	if p.atReserved(w) {
		p.i++
	}
}

func (p *parser) skipNewlines() {
	for p.atOp("\n") {
		p.i++
	}
}

func (p *parser) skipSeparators() {
	for p.atOp("\n", ";") {
		p.i++
	}
}

func isRedirect(op string) bool {
	return strings.HasPrefix(op, "<") || strings.HasPrefix(op, ">") || strings.HasPrefix(op, "&>")
}

// parseList reads pipelines until end of input, a closing token, or one of
// the stop words at the start of a command.
func (p *parser) parseList(stop []string) List {
	var l List
	p.depth++
	defer func() { p.depth-- }()
	if p.depth > maxDepth {
		p.i = len(p.tokens)
		return l
	}
	for {
		p.skipSeparators()
		if p.eof() || p.atOp(")", ";;") || p.atReserved(stop...) {
			return l
		}
		pl, ok := p.parsePipeline()
		if !ok {
			return l
		}
		if p.atOp(";", "&&", "||", "&", "\n") {
			pl.Op = p.peek().text
			if pl.Op == "\n" {
				pl.Op = ";"
			}
			p.i++
		}
		l.Pipelines = append(l.Pipelines, pl)
	}
}

func (p *parser) parsePipeline() (Pipeline, bool) {
	var pl Pipeline
	if p.atReserved("!") {
		pl.Negated = true
		p.i++
	}
	if p.atReserved("time") {
		p.i++
		if p.atReserved("-p") {
			p.i++
		}
	}
	for {
		cmd, ok := p.parseCommand()
		if !ok {
			break
		}
		pl.Commands = append(pl.Commands, cmd)
		if !p.atOp("|", "|&") {
			break
		}
		p.i++
		p.skipNewlines()
	}
	return pl, len(pl.Commands) > 0
}

func (p *parser) parseCommand() (Command, bool) {
	p.depth++
	defer func() { p.depth-- }()
	if p.eof() || p.depth > maxDepth {
		p.i = len(p.tokens)
		return Command{}, false
	}
	t := p.peek()
	if t.kind == opToken {
		switch {
		case t.text == "(":
			p.i++
			body := p.parseList(nil)
			if p.atOp(")") {
				p.i++
			}
			return p.redirections(Command{Group: &body}), true
		case isRedirect(t.text):
			return p.parseSimple(), true
		}
		return Command{}, false
	}
	if !t.quoted {
		switch t.text {
		case "{":
			p.i++
			body := p.parseList([]string{"}"})
			p.expectReserved("}")
			return p.redirections(Command{Group: &body}), true
		case "for":
			return p.redirections(p.parseFor()), true
		case "while", "until":
			return p.redirections(p.parseWhile()), true
		case "if":
			return p.redirections(p.parseIf()), true
		case "case":
			return p.redirections(p.parseCase()), true
		case "function":
			p.i++
			if !p.eof() {
				p.i++ // the name
			}
			return p.skipFunctionBody(), true
		case "}", "do", "done", "then", "elif", "else", "fi", "esac", "in":
			return Command{}, false
		}
	}
	return p.parseSimple(), true
}

// skipFunctionBody reads a function definition's body and drops it: defining
// a function runs nothing.
func (p *parser) skipFunctionBody() Command {
	if p.atOp("(") {
		p.i++
		if p.atOp(")") {
			p.i++
		}
	}
	p.skipNewlines()
	p.parseCommand()
	return Command{}
}

// redirections reads redirections after a command and notes whether they
// take its input or output away from the terminal.
func (p *parser) redirections(c Command) Command {
	for !p.eof() && p.peek().kind == opToken && isRedirect(p.peek().text) {
		t := p.peek()
		p.i++
		target := ""
		if !p.eof() && p.peek().kind == wordToken {
			target = p.peek().text
			p.i++
		}
		noteRedirect(&c, t, target)
	}
	return c
}

func noteRedirect(c *Command, op token, target string) {
	switch op.text {
	case "<", "<<", "<<-", "<<<", "<>", "<&":
		if op.fd == "" || op.fd == "0" {
			c.StdinRedirected = true
		}
	case ">", ">>", ">|", "&>", "&>>":
		if op.fd == "" || op.fd == "1" {
			c.StdoutRedirected = true
		}
	case ">&":
		// `>&2` sends output to stderr, still the terminal; `>&file` does not.
		if (op.fd == "" || op.fd == "1") && !isDigits(target) && target != "-" {
			c.StdoutRedirected = true
		}
	}
}

func (p *parser) parseSimple() Command {
	var c Command
	s := &Simple{}
	for !p.eof() {
		t := p.peek()
		if t.kind == opToken {
			if !isRedirect(t.text) {
				break
			}
			p.i++
			target := ""
			if !p.eof() && p.peek().kind == wordToken {
				target = p.peek().text
				p.i++
			}
			noteRedirect(&c, t, target)
			continue
		}
		p.i++
		if len(s.Args) == 0 && t.assign {
			s.Assigns = append(s.Assigns, t.text)
			continue
		}
		s.Args = append(s.Args, t.text)
		if len(s.Args) == 1 && !t.quoted {
			if t.text == "[[" {
				p.readTestWords(s)
				continue
			}
			if len(s.Assigns) == 0 && p.atOp("(") && p.i+1 < len(p.tokens) &&
				p.tokens[p.i+1].kind == opToken && p.tokens[p.i+1].text == ")" {
				return p.skipFunctionBody() // name() { …; }
			}
		}
	}
	if len(s.Args) > 0 || len(s.Assigns) > 0 {
		c.Simple = s
	}
	return c
}

// readTestWords reads a [[ … ]] expression, whose && and || are its own.
func (p *parser) readTestWords(s *Simple) {
	for !p.eof() {
		t := p.peek()
		p.i++
		s.Args = append(s.Args, t.text)
		if t.kind == wordToken && !t.quoted && t.text == "]]" {
			return
		}
	}
}

func (p *parser) parseFor() Command {
	p.i++ // for
	loop := &Loop{Kind: "for"}
	if t := p.peek(); !p.eof() && t.kind == wordToken && strings.HasPrefix(t.text, "((") {
		loop.Arith = strings.TrimSuffix(strings.TrimPrefix(t.text, "(("), "))")
		p.i++
	} else if !p.eof() && t.kind == wordToken {
		p.i++ // the variable
		p.skipNewlines()
		if p.atReserved("in") {
			p.i++
			loop.ItemsGiven = true
			for !p.eof() && p.peek().kind == wordToken {
				loop.Items = append(loop.Items, p.peek().text)
				p.i++
			}
		}
	}
	p.skipSeparators()
	if p.atReserved("do") {
		p.i++
		loop.Body = p.parseList([]string{"done"})
		p.expectReserved("done")
	} else if p.atReserved("{") {
		p.i++
		loop.Body = p.parseList([]string{"}"})
		p.expectReserved("}")
	}
	return Command{Loop: loop}
}

func (p *parser) parseWhile() Command {
	loop := &Loop{Kind: p.peek().text}
	p.i++
	loop.Cond = p.parseList([]string{"do"})
	p.expectReserved("do")
	loop.Body = p.parseList([]string{"done"})
	p.expectReserved("done")
	return Command{Loop: loop}
}

// parseIf flattens every condition and branch into one group, in order.
func (p *parser) parseIf() Command {
	var all List
	p.i++ // if
	for {
		cond := p.parseList([]string{"then"})
		all.Pipelines = append(all.Pipelines, cond.Pipelines...)
		p.expectReserved("then")
		body := p.parseList([]string{"elif", "else", "fi"})
		all.Pipelines = append(all.Pipelines, body.Pipelines...)
		if p.atReserved("elif") {
			p.i++
			continue
		}
		if p.atReserved("else") {
			p.i++
			body := p.parseList([]string{"fi"})
			all.Pipelines = append(all.Pipelines, body.Pipelines...)
		}
		p.expectReserved("fi")
		return Command{Group: &all}
	}
}

// parseCase flattens every arm into one group, in order.
func (p *parser) parseCase() Command {
	var all List
	p.i++ // case
	if !p.eof() && p.peek().kind == wordToken {
		p.i++ // the subject
	}
	p.skipNewlines()
	p.expectReserved("in")
	for {
		p.skipSeparators()
		if p.eof() {
			break
		}
		if p.atReserved("esac") {
			p.i++
			break
		}
		if p.atOp("(") {
			p.i++
		}
		for !p.eof() && !p.atOp(")") {
			p.i++ // pattern words and `|`
		}
		if p.atOp(")") {
			p.i++
		}
		body := p.parseList([]string{"esac"})
		all.Pipelines = append(all.Pipelines, body.Pipelines...)
		if p.atOp(";;") {
			p.i++
		}
	}
	return Command{Group: &all}
}
