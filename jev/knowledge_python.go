package jev

import (
	"strings"

	"github.com/hangdog/hangdog/internal/termtext"
)

// classifyPython follows python's options to the module, script or inline
// code it runs; with none of them it is a REPL.
func classifyPython(inv invocation, args []string) knowledge {
	interactive := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-m" && i+1 < len(args):
			return classifyPythonModule(inv, args[i+1], args[i+2:])
		case strings.HasPrefix(a, "-m") && len(a) > 2 && !strings.HasPrefix(a, "--"):
			return classifyPythonModule(inv, a[2:], args[i+1:])
		case a == "-c" || strings.HasPrefix(a, "-c") && !strings.HasPrefix(a, "--"):
			return knowledge{cat: catQuick, does: "runs inline code", guess: true}
		case a == "-W" || a == "-X" || a == "--check-hash-based-pycs":
			i++
		case a == "-i":
			interactive = true
		case a == "-":
			return readsInput(inv, "reads a program from the terminal")
		case a == "--version" || a == "-V" || a == "--help" || a == "-h":
			return know(catQuick, "")
		case !strings.HasPrefix(a, "-"):
			if interactive {
				return know(catInteractive, "opens a REPL after the script (-i)")
			}
			return classifyPythonScript(a, args[i+1:])
		}
	}
	if inv.stdinTTY || interactive {
		return know(catInteractive, "opens the Python REPL, which waits for a person")
	}
	return knowledge{does: "runs a program from its input"}
}

func classifyPythonModule(inv invocation, mod string, args []string) knowledge {
	switch mod {
	case "http.server", "SimpleHTTPServer", "smtpd", "aiosmtpd":
		return know(catServer, "starts a server that runs until stopped")
	case "pytest", "unittest", "nose", "nose2", "tox", "nox", "doctest":
		return know(catTest, "")
	case "pip":
		return classifyPip(args)
	case "venv", "virtualenv", "ensurepip", "compileall", "json.tool", "py_compile", "black", "isort", "ruff", "flake8", "pyflakes", "timeit", "site", "platform", "sysconfig":
		if mod == "json.tool" && len(positionals(args, "--indent")) == 0 {
			return readsInput(inv, "reads JSON from the terminal (no file given)")
		}
		return know(catQuick, "")
	case "mypy", "pylint", "build", "pyright", "nuitka", "PyInstaller":
		return know(catBuild, "")
	case "pdb", "ipdb", "code", "IPython", "idlelib", "asyncio":
		return know(catInteractive, "opens an interactive console")
	case "flask", "streamlit", "mkdocs", "jupyter", "celery":
		return classify(invocation{argv: append([]string{mod}, args...), stdinTTY: inv.stdinTTY, stdoutTTY: inv.stdoutTTY})
	case "uvicorn", "gunicorn", "hypercorn", "daphne", "waitress", "granian", "fastapi", "gradio", "panel", "bokeh", "tensorboard.main":
		if mod == "fastapi" && !inWords("dev run", firstPositional(args, "")) {
			return know(catQuick, "")
		}
		return know(catServer, "starts a server that runs until stopped")
	case "django":
		return classifyDjango(args)
	}
	return knowledge{does: "runs the module " + termtext.Clip(mod, 40)}
}

func classifyPythonScript(script string, args []string) knowledge {
	if commandName(script) == "manage.py" {
		return classifyDjango(args)
	}
	return knowledge{does: "runs " + termtext.Clip(script, 40)}
}

func classifyDjango(args []string) knowledge {
	switch firstPositional(args, "--settings --pythonpath") {
	case "runserver", "runserver_plus", "runsslserver", "livereload":
		return know(catServer, "starts a dev server that runs until stopped")
	case "test":
		return know(catTest, "")
	case "shell", "shell_plus", "dbshell", "createsuperuser":
		return know(catInteractive, "asks for input in the terminal")
	case "migrate", "makemigrations", "collectstatic", "check", "showmigrations":
		return know(catQuick, "")
	}
	return knowledge{does: "runs a Django management command"}
}

func classifyPip(args []string) knowledge {
	switch firstPositional(args, "--index-url -i --extra-index-url -r --requirement -c --constraint --target -t --prefix") {
	case "install", "download", "wheel":
		return know(catPackage, "installs packages")
	case "uninstall":
		if hasShort(args, "y") || hasFlag(args, "--yes") {
			return know(catQuick, "")
		}
		return knowledge{cat: catQuick, prompt: "asks \"Proceed (Y/n)?\" unless given -y"}
	}
	return know(catQuick, "")
}

// classifySiteTool knows the site generators' and app frameworks' serve
// subcommands.
func classifySiteTool(name string, args []string) knowledge {
	sub := firstPositional(args, "-f --config-file -s --source -d --destination --port -p")
	switch name {
	case "streamlit", "chainlit", "marimo":
		if inWords("run edit", sub) {
			return know(catServer, "starts an app server that runs until stopped")
		}
	case "gradio":
		return know(catServer, "starts an app server that runs until stopped")
	case "panel", "bokeh":
		if sub == "serve" {
			return know(catServer, "starts an app server that runs until stopped")
		}
	case "voila":
		return know(catServer, "starts an app server that runs until stopped")
	case "mlflow":
		if inWords("ui server", sub) {
			return know(catServer, "starts a server that runs until stopped")
		}
	case "eleventy":
		if hasFlag(args, "--serve") {
			return know(catServer, "starts a dev server that runs until stopped")
		}
		return know(catBuild, "")
	case "docusaurus":
		if inWords("start serve", sub) {
			return know(catServer, "starts a dev server that runs until stopped")
		}
		if sub == "build" {
			return know(catBuild, "")
		}
	case "hugo":
		if inWords("server serve", sub) {
			return know(catServer, "starts a dev server that runs until stopped")
		}
		if sub == "" {
			return know(catBuild, "")
		}
	default: // mkdocs, jekyll, zola
		if inWords("serve server s", sub) {
			return know(catServer, "starts a dev server that runs until stopped")
		}
		if inWords("build b", sub) {
			return know(catBuild, "")
		}
	}
	return know(catQuick, "")
}
