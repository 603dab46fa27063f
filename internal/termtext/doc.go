// Package termtext owns turning what a program wrote to a terminal into plain
// text a person or a model can read. Output is always valid UTF-8 (invalid
// bytes become U+FFFD) and never contains ESC or any control character but
// newline and tab, so untrusted command output cannot drive the reader's
// terminal.
//
// What a line shows is resolved the way a terminal would show it: text after
// a bare carriage return overwrites the line from column 0 ("50%\r100%\n" is
// "100%\n"), CRLF is a newline, backspace moves left, and the sequences
// progress bars redraw with — erase to end of line (CSI K), cursor column
// (CSI G) and cursor left/right (CSI D, C) — take effect. Every other escape
// sequence (colours, titles, hyperlinks, cursor up, screen clears) is
// removed. Two liberties make a log readable: erase-whole-line (CSI 2K)
// also returns to column 0, and a newline ends an unterminated OSC or DCS
// string instead of letting it swallow the rest of the log.
//
// It also owns the one tokenizer of terminal output (Tokenizer), which both
// the Writer here and the shell's screen (termtext/screen) read a program's
// bytes through, and Head and Tail, the whole lines of plain text that fit
// a budget at either end of an output.
package termtext
