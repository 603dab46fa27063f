#!/usr/bin/env node
// hangdog's npm entry point. The program is native: the platform package
// npm installed beside this one as an optional dependency (os and cpu pick
// it, as for esbuild, Codex and Claude Code) carries hangdog, hangdog-full,
// hangdog-supervisor and hangdog-watch side by side, the way make install
// puts them, so hangdog finds its siblings next to itself. This shim only
// starts it: stdio is passed through untouched (an MCP client talks to
// hangdog directly), signals sent to this process are forwarded, and
// hangdog's exit status (or the signal that ended it) becomes this
// process's.
"use strict";

const { spawn } = require("child_process");
const path = require("path");

// Node's platform and arch → the package carrying that build.
const packages = {
  "linux x64": "@hangdog/linux-x64",
  "linux arm64": "@hangdog/linux-arm64",
};

// Exit status for hangdog's own failures, as the program uses (125).
const exitHangdogError = 125;

function fail(msg) {
  process.stderr.write(`hangdog: ${msg}\n`);
  process.exit(exitHangdogError);
}

const key = `${process.platform} ${process.arch}`;
const pkg = packages[key];
if (!pkg) {
  fail(
    `no build for ${process.platform}/${process.arch}: hangdog runs on Linux ` +
      `(x64, arm64) only, because its supervisor reads /proc and drives ` +
      `Linux terminals and process groups`,
  );
}

let bin;
try {
  bin = path.join(path.dirname(require.resolve(`${pkg}/package.json`)), "bin", "hangdog");
} catch (err) {
  fail(
    `${pkg}, the package holding hangdog's program for this machine, is not ` +
      `installed (${err.code || err.message}); reinstall hangdog without ` +
      `--omit=optional or --no-optional`,
  );
}

const child = spawn(bin, process.argv.slice(2), { stdio: "inherit" });

// A terminal's Ctrl-C reaches hangdog itself (same process group); forwarding
// it again is harmless, hangdog only stops the command once. Signals sent to
// this process alone (an MCP client ending its server) must reach hangdog.
const forwarded = ["SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT"];
for (const sig of forwarded) {
  process.on(sig, () => {
    if (child.exitCode === null && child.signalCode === null) child.kill(sig);
  });
}

child.on("error", (err) => fail(`cannot start ${bin}: ${err.message}`));

child.on("exit", (code, signal) => {
  if (signal) {
    // End the same way, so the caller sees the signal, not a made-up code.
    for (const sig of forwarded) process.removeAllListeners(sig);
    process.kill(process.pid, signal);
    return;
  }
  process.exit(code === null ? exitHangdogError : code);
});
