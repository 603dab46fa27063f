package jev

import (
	"testing"
	"time"
)

func TestDeclaredBound(t *testing.T) {
	const none = time.Duration(-1)
	tests := []struct {
		cmd  string
		want time.Duration // none: no bound declared
	}{
		// From the brief.
		{`timeout 600 ./x`, 600 * time.Second},
		{`timeout 5m x`, 300 * time.Second},
		{`sleep 330 && k`, 330 * time.Second},
		{`sleep 3`, none},
		{`for i in $(seq 1 150); do x; sleep 3; done`, 450 * time.Second},
		{`x`, none},
		{`timeout -s KILL 10 x`, 10 * time.Second},
		{`sleep 2; sleep 3; make`, 5 * time.Second},
		// Durations: suffixes and fractions.
		{`timeout 1.5h ./train`, 90 * time.Minute},
		{`timeout 2d ./x`, 48 * time.Hour},
		{`timeout 30s curl x`, 30 * time.Second},
		{`timeout .5 x`, 500 * time.Millisecond},
		{`timeout 0 x`, none}, // 0 disables the timeout
		{`timeout abc x`, none},
		{`timeout inf x`, none},
		// timeout options.
		{`timeout --signal=TERM 20 x`, 20 * time.Second},
		{`timeout -k 5 60 x`, 65 * time.Second},
		{`timeout --kill-after=10s 1m x`, 70 * time.Second},
		{`timeout -k5 60 x`, 65 * time.Second},
		{`timeout --preserve-status --foreground 45 x`, 45 * time.Second},
		// Wrappers around and inside timeout.
		{`sudo timeout 10 apt-get update`, 10 * time.Second},
		{`timeout 10 sudo apt-get update`, 10 * time.Second},
		{`FOO=1 env BAR=2 nice -n 5 timeout 7 x`, 7 * time.Second},
		{`timeout 600 bash -c 'sleep 5; make'`, 600 * time.Second},
		{`bash -lc "sleep 20 && npm test"`, 20 * time.Second},
		{`timeout 600 sleep 5`, 5 * time.Second}, // ends with the sleep
		{`timeout 10 sleep 100`, 10 * time.Second},
		// Sequences add; pipelines run together; & adds nothing.
		{`timeout 60 a && timeout 30 b`, 90 * time.Second},
		{`timeout 60 make 2>&1 | tee log`, 60 * time.Second},
		{`sleep 5; x | timeout 20 y`, 25 * time.Second},
		{`sleep 100 & make`, none},
		{`npm run dev & sleep 10 && curl localhost:3000`, 10 * time.Second},
		{`sleep 5 && echo done`, 5 * time.Second},
		{`sleep 1m 30s; x`, 90 * time.Second},
		{`sleep infinity; x`, none},
		{`sleep $N && x`, none},
		{`sleep 2; sleep 3`, none}, // nothing but sleeping
		// Loops.
		{`for i in $(seq 10); do x; sleep 1; done`, 10 * time.Second},
		{`for i in $(seq 0 2 10); do x; sleep 2; done`, 12 * time.Second},
		{"for i in `seq 1 5`; do x; sleep 4; done", 20 * time.Second},
		{`for i in {1..20}; do curl -s x; sleep 0.5; done`, 10 * time.Second},
		{`for i in {10..1}; do x; sleep 1; done`, 10 * time.Second},
		{`for i in {0..100..10}; do x; sleep 1; done`, 11 * time.Second},
		{`for h in a b c; do ssh $h uptime; sleep 2; done`, 6 * time.Second},
		{`for f in {a,b,c,d}; do x $f; sleep 1; done`, 4 * time.Second},
		{`for ((i=0; i<30; i++)); do x; sleep 2; done`, 60 * time.Second},
		{`for ((i=1; i<=30; i+=3)); do x; sleep 1; done`, 10 * time.Second},
		{`for ((i=10; i>0; i--)); do x; sleep 1; done`, 10 * time.Second},
		{`for ((;;)); do x; sleep 1; done`, none},
		{`for f in *.log; do x; sleep 1; done`, none},
		{`for f in $FILES; do x; sleep 1; done`, none},
		{`while true; do x; sleep 3; done`, none},
		{`until curl -sf localhost; do sleep 2; done`, none},
		{`for i in 1 2; do for j in 1 2 3; do x; sleep 1; done; done`, 6 * time.Second},
		{`for i in $(seq 1 3); do timeout 10 x; done`, 30 * time.Second},
		{`sleep 5; for i in $(seq 1 150); do x; sleep 3; done`, 455 * time.Second},
		{`print waiting; repeat 6 sleep 1.5; print done`, 9 * time.Second}, // zsh's counted loop
		{`zsh -c 'print waiting; repeat 6 sleep 1.5; print done'`, 9 * time.Second},
		{`repeat $N sleep 1; x`, none},
		{`repeat 3 x`, none}, // no time declared
		// if/case branches all count (an upper bound).
		{`if x; then sleep 5; else sleep 10; fi; y`, 15 * time.Second},
		{`(sleep 3 && make) 2>&1 | tee out`, 3 * time.Second},
		{`{ sleep 4; make; } > log`, 4 * time.Second},
		// No declaration at all.
		{`npm run dev`, none},
		{`make -j8 && make test`, none},
		{`echo 'sleep 300'`, none},
		{`grep timeout file`, none},
	}
	for _, tt := range tests {
		got, ok := DeclaredBound(tt.cmd)
		if tt.want == none {
			if ok {
				t.Errorf("DeclaredBound(%q) = %v, want none", tt.cmd, got)
			}
			continue
		}
		if !ok || got != tt.want {
			t.Errorf("DeclaredBound(%q) = %v, %v; want %v", tt.cmd, got, ok, tt.want)
		}
	}
}

func TestParseDuration(t *testing.T) {
	good := map[string]time.Duration{
		"10": 10 * time.Second, "10s": 10 * time.Second, "2m": 2 * time.Minute, "1.5h": 90 * time.Minute,
		"1d": 24 * time.Hour, "0.25": 250 * time.Millisecond, "3.": 3 * time.Second,
	}
	for in, want := range good {
		if got, ok := parseDuration(in); !ok || got != want {
			t.Errorf("parseDuration(%q) = %v, %v; want %v", in, got, ok, want)
		}
	}
	for _, in := range []string{"", "s", "-5", "1e3", "inf", "nan", "5x", "1.2.3", "0x10", "."} {
		if got, ok := parseDuration(in); ok {
			t.Errorf("parseDuration(%q) = %v, want invalid", in, got)
		}
	}
}
