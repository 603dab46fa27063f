package jev

import (
	"strings"
	"testing"
)

func TestExpectFromCommand(t *testing.T) {
	tests := []struct {
		cmd, want string
		why       string // a word the evidence must hold ("" = any)
	}{
		// Dev servers and services.
		{"npm run dev", ExpectNever, "dev server"},
		{"pnpm dev", ExpectNever, "dev server"},
		{"yarn start", ExpectNever, "server"},
		{"bun run dev", ExpectNever, "dev server"},
		{"vite", ExpectNever, "dev server"},
		{"npx vite --port 5173", ExpectNever, "dev server"},
		{"next dev", ExpectNever, "dev server"},
		{"rails s -p 3001", ExpectNever, "dev server"},
		{"bundle exec rails server", ExpectNever, "dev server"},
		{"python -m http.server 8000", ExpectNever, "server"},
		{"python3 manage.py runserver", ExpectNever, "dev server"},
		{"flask run --debug", ExpectNever, "dev server"},
		{"uvicorn main:app --reload", ExpectNever, "server"},
		{"uv run uvicorn main:app", ExpectNever, "server"},
		{"docker compose up", ExpectNever, "foreground"},
		{"docker-compose -f dev.yml up --build", ExpectNever, "foreground"},
		{"kubectl port-forward svc/web 8080:80", ExpectNever, "forwards"},
		{"kubectl -n prod port-forward pod/db 5432", ExpectNever, "forwards"},
		{"php artisan serve", ExpectNever, "server"},
		{"hugo server -D", ExpectNever, "dev server"},
		{"jupyter lab", ExpectNever, "server"},
		{"ssh -N -L 5432:db:5432 bastion", ExpectNever, "tunnel"},
		{"nc -l 9000", ExpectNever, "listens"},
		{"make dev", ExpectNever, "dev server"},
		{"mvn spring-boot:run", ExpectNever, "until stopped"},
		{"./gradlew bootRun", ExpectNever, "until stopped"},
		// Follow and watch modes.
		{"tail -f /var/log/app.log", ExpectNever, "follows"},
		{"tail -n 100 -F app.log", ExpectNever, "follows"},
		{"tail -fn50 app.log", ExpectNever, "follows"},
		{"journalctl -u nginx -f", ExpectNever, "follows"},
		{"kubectl logs -f deploy/web", ExpectNever, "follows"},
		{"docker logs --follow web", ExpectNever, "follows"},
		{"docker compose logs -f", ExpectNever, "follows"},
		{"kubectl get pods -w", ExpectNever, "watches"},
		{"watch -n 2 kubectl get pods", ExpectNever, "until stopped"},
		{"nodemon server.js", ExpectNever, "watches"},
		{"tsc --watch", ExpectNever, "watch"},
		{"tsc -w -p .", ExpectNever, "rebuilds"},
		{"jest --watchAll", ExpectNever, "watch"},
		{"npm test -- --watch", ExpectNever, "watch"},
		{"vitest", ExpectNever, "watch"},
		{"cargo watch -x test", ExpectNever, "rebuilds"},
		{"ping example.com", ExpectNever, "until stopped"},
		{"sleep infinity", ExpectNever, "forever"},
		{"while true; do curl -s localhost/health; sleep 5; done", ExpectNever, "while true"},
		// Pagers and editors.
		{"less README.md", ExpectNever, "pager"},
		{"man tar", ExpectNever, "pager"},
		{"git log", ExpectNever, "pager"},
		{"git diff HEAD~3", ExpectNever, "pager"},
		{"systemctl status nginx | cat", ExpectSeconds, ""},
		{"journalctl -u nginx", ExpectNever, "pager"},
		{"vim main.go", ExpectNever, "editor"},
		{"nano /etc/hosts", ExpectNever, "editor"},
		{"emacs notes.org", ExpectNever, "editor"},
		{"git commit", ExpectNever, "editor"},
		{"git commit --amend", ExpectNever, "editor"},
		{"git rebase -i HEAD~3", ExpectNever, "editor"},
		{"crontab -e", ExpectNever, "editor"},
		{"kubectl edit deploy/web", ExpectNever, "editor"},
		// Interactive programs and terminal readers.
		{"python3", ExpectNever, "REPL"},
		{"node", ExpectNever, "REPL"},
		{"psql", ExpectNever, "database shell"},
		{"ssh prod-1", ExpectNever, "remote shell"},
		{"docker run -it ubuntu bash", ExpectNever, "interactive"},
		{"top", ExpectNever, "waits for a person"},
		{"git add -p", ExpectNever, "asks"},
		{"npm init", ExpectNever, "asks"},
		{"cat", ExpectNever, "no file given"},
		{"grep TODO", ExpectNever, "no file given"},
		{"jq .", ExpectNever, "no file given"},
		{"sort -k2", ExpectNever, "no file given"},
		{"read -p 'Continue? ' ok", ExpectNever, "reads a line"},
		// Package managers.
		{"npm install", ExpectMinutes, "installs"},
		{"npm ci", ExpectMinutes, "installs"},
		{"pnpm install --frozen-lockfile", ExpectMinutes, "installs"},
		{"yarn", ExpectMinutes, "installs"},
		{"yarn add react", ExpectMinutes, "installs"},
		{"pip install -r requirements.txt", ExpectMinutes, "installs"},
		{"python -m pip install requests", ExpectMinutes, "installs"},
		{"uv sync", ExpectMinutes, "installs"},
		{"apt-get install -y curl", ExpectMinutes, "installs"},
		{"sudo apt-get update", ExpectMinutes, "installs"},
		{"go mod download", ExpectMinutes, "installs"},
		{"bundle install", ExpectMinutes, "installs"},
		{"apt-get dist-upgrade -y", ExpectLong, "upgrades"},
		// Test runners.
		{"go test ./...", ExpectMinutes, "tests"},
		{"go test -race -count=1 ./jev/", ExpectMinutes, "tests"},
		{"pytest -x tests/", ExpectMinutes, "tests"},
		{"python -m pytest", ExpectMinutes, "tests"},
		{"jest --ci", ExpectMinutes, "tests"},
		{"npx jest", ExpectMinutes, "tests"},
		{"vitest run", ExpectMinutes, "tests"},
		{"cargo test --release", ExpectMinutes, "tests"},
		{"npm test", ExpectMinutes, "tests"},
		{"make test", ExpectMinutes, "test"},
		{"./mvnw test", ExpectMinutes, "tests"},
		{"bundle exec rspec", ExpectMinutes, "tests"},
		// Builds.
		{"make", ExpectMinutes, "builds"},
		{"make -j8 all", ExpectMinutes, "builds"},
		{"go build ./...", ExpectMinutes, "builds"},
		{"tsc -p tsconfig.json", ExpectMinutes, "builds"},
		{"cargo build --release", ExpectMinutes, "builds"},
		{"npm run build", ExpectMinutes, "build"},
		{"vite build", ExpectMinutes, "builds"},
		{"docker build -t app .", ExpectMinutes, "image"},
		{"cmake --build build", ExpectMinutes, "builds"},
		{"terraform apply -auto-approve", ExpectLong, "infrastructure"},
		// Quick commands and pipes.
		{"ls -la", ExpectSeconds, "quick"},
		{"git status", ExpectSeconds, "quick"},
		{"git --no-pager log -5", ExpectSeconds, "quick"},
		{"GIT_PAGER=cat git log", ExpectSeconds, "quick"},
		{"git log --oneline | head -20", ExpectSeconds, ""},
		{"git log > history.txt", ExpectSeconds, ""},
		{"man ls | col -b", ExpectSeconds, ""},
		{"git commit -m 'fix: tests'", ExpectSeconds, "quick"},
		{"cat package.json | jq .scripts", ExpectSeconds, ""},
		{"grep -rn TODO src/", ExpectSeconds, "quick"},
		{"echo hi | grep h", ExpectSeconds, ""},
		{"sort < names.txt", ExpectSeconds, ""},
		{"cat <<'EOF' > f.txt\nnpm run dev\nEOF", ExpectSeconds, ""},
		{"curl -s https://example.com", ExpectSeconds, "network"},
		{"sleep 5", ExpectSeconds, "sleeps"},
		{"sleep 5m", ExpectMinutes, "sleeps"},
		{"sleep 2h", ExpectLong, "sleeps"},
		// Shell structure: &&, ;, env, sudo, timeout, quoting, bash -c.
		{"cd web && npm run dev", ExpectNever, "dev server"},
		{"npm install; npm run build", ExpectMinutes, ""},
		{"NODE_ENV=development npm run dev", ExpectNever, "dev server"},
		{"env PORT=3000 npm start", ExpectNever, "server"},
		{"sudo -u www-data tail -f /var/log/nginx/access.log", ExpectNever, "follows"},
		{"timeout 60 npm run dev", ExpectSeconds, "timeout"},
		{"timeout 5m tail -f log", ExpectMinutes, "timeout"},
		{"timeout 2h make", ExpectMinutes, ""},
		{"bash -c 'npm run dev'", ExpectNever, "dev server"},
		{`sh -c "cd app && exec python -m http.server"`, ExpectNever, "server"},
		{"echo 'npm run dev'", ExpectSeconds, "quick"},
		{"nohup npm run dev > dev.log 2>&1 &", ExpectNever, "dev server"},
		{"for i in $(seq 1 150); do curl -s x; sleep 3; done", ExpectMinutes, "sleeps 7m30s"},
		{"until curl -sf localhost:3000; do sleep 1; done", ExpectMinutes, "polls"},
		{"./configure && make", ExpectMinutes, "unknown"},
		{"my-tool --flag", ExpectMinutes, "not a command hangdog knows"},
	}
	for _, tt := range tests {
		got, why := ExpectFromCommand(tt.cmd)
		if got != tt.want {
			t.Errorf("ExpectFromCommand(%q) = %s (%s), want %s", tt.cmd, got, why, tt.want)
			continue
		}
		if why == "" || !strings.Contains(strings.ToLower(why), strings.ToLower(tt.why)) {
			t.Errorf("ExpectFromCommand(%q) evidence %q lacks %q", tt.cmd, why, tt.why)
		}
	}
}

func TestExpectConfidence(t *testing.T) {
	for cmd, span := range map[string][2]float64{
		"tail -f log":    {0.85, 1},
		"npm install":    {0.75, 0.85},
		"npm run dev":    {0.6, 0.7}, // a naming convention, not a rule
		"./mystery.sh":   {0, 0.45},
		"./x && npm ci":  {0, 0.55}, // something unknown could take longer
		"vim && echo ok": {0.85, 1},
	} {
		f := analyzeCommand(cmd)
		if f.expectConf < span[0] || f.expectConf > span[1] {
			t.Errorf("%q: expect confidence %.2f, want %.2f..%.2f", cmd, f.expectConf, span[0], span[1])
		}
	}
}

func TestPromptsFromCommand(t *testing.T) {
	for cmd, want := range map[string]string{
		"sudo apt-get install curl": "Do you want to continue",
		"terraform apply":           "-auto-approve",
		"docker system prune":       "-f",
		"pip uninstall requests":    "Proceed",
		"git push origin main":      "credentials",
		"sudo make install":         "`sudo make install` may ask for a password",
	} {
		got := strings.Join(analyzeCommand(cmd).prompts(), " ")
		if !strings.Contains(got, want) {
			t.Errorf("prompts(%q) = %q, want %q", cmd, got, want)
		}
	}
	for _, cmd := range []string{"apt-get install -y curl", "sudo -n make install", "sudo -nE ls"} {
		if got := analyzeCommand(cmd).prompts(); len(got) != 0 {
			t.Errorf("%s still prompts: %q", cmd, got)
		}
	}
}

func TestQuestionsAreCopies(t *testing.T) {
	qs := Questions()
	qs[0].Choices[0] = "changed"
	qs[0].Criteria[Progressing] = "changed"
	if Status.Choices[0] != Progressing || Status.Criteria[Progressing] == "changed" {
		t.Fatal("changing a Questions() copy changed the package's Status question")
	}
	for _, q := range Questions() {
		if q.Kind == KindChoice {
			for _, c := range q.Choices {
				if q.Criteria[c] == "" {
					t.Errorf("%s: choice %s has no criterion", q.ID, c)
				}
			}
		}
	}
}
