package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/hangdog/hangdog/settings"
)

func init() { registerCommand(newConfigCmd) }

func newConfigCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "config",
		Short: "Show and change settings: list, get, set, path",
		Long: `Show and change hangdog's settings.

The watchdog's settings live under "watchdog." (you may leave that prefix
out); tasks.keepDays says how long ended tasks are kept. Each is read from
these layers, each overriding the one before:

  1. built-in defaults
  2. the user file      $XDG_CONFIG_HOME/hangdog/config.yaml (else ~/.config/hangdog/config.yaml)
  3. the project file   .hangdog.yaml in the working directory or its nearest parent
  4. the environment    HANGDOG_ + the key in upper case with dots as _,
                        e.g. HANGDOG_WATCHDOG_INTERVALMIN=0.5
  5. command-line flags

A file looks like:

  watchdog:
    intervalMin: 0.5
    decisionModel:
      source: custom

  tasks:
    keepDays: 30

A bad value in any layer stops hangdog with one error that names the file or
variable, the key, the value and what is allowed. A project file comes with its
repository, so it may not set decisionModel.url, decisionModel.apiKeyEnv or
tasks.keepDays.`,
		Example: `  hangdog config list
  hangdog config get intervalMin
  hangdog config set confidence 0.7
  hangdog config set --project action warn
  hangdog config path`,
	}
	cmd.AddCommand(newConfigListCmd(), newConfigGetCmd(), newConfigSetCmd(), newConfigPathCmd())
	return cmd
}

func newConfigListCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List every setting with its value and where the value comes from",
		Long: `List every setting with its effective value and its source: "default", the
user or project file it was read from, the environment variable that set it,
or "flag".

--json prints an array of objects that also carry each key's help text, what
it allows, its kind (bool, number, int, choice, string) and its choices.`,
		Example: `  hangdog config list
  hangdog config list --json | jq -r '.[] | select(.source != "default") | .key'`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			s, err := settings.Load(settings.Options{})
			if err != nil {
				return err
			}
			if asJSON {
				enc := json.NewEncoder(cmd.OutOrStdout())
				enc.SetIndent("", "  ")
				return enc.Encode(s.Entries())
			}
			return writeSettingsTable(cmd.OutOrStdout(), s.Entries())
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON with help, allowed values and kind for each key")
	return cmd
}

func writeSettingsTable(w io.Writer, entries []settings.Entry) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "KEY\tVALUE\tSOURCE")
	for _, e := range entries {
		value := e.Text()
		if value == "" {
			value = `""`
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", e.Key, value, describeSource(e))
	}
	return tw.Flush()
}

func describeSource(e settings.Entry) string {
	switch e.Source {
	case settings.SourceUser, settings.SourceProject, settings.SourceEnv:
		return e.Source + " " + e.SourceDetail
	}
	return e.Source
}

func newConfigGetCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "get KEY",
		Short: "Print one setting's effective value",
		Long: `Print the effective value of one setting, after every layer is applied, and
nothing else, so scripts can use it. An empty value prints an empty line.
"hangdog config list" shows where the value comes from.`,
		Example: `  hangdog config get confidence
  hangdog config get watchdog.decisionModel.backend
  interval=$(hangdog config get intervalMin)`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := settings.Load(settings.Options{})
			if err != nil {
				return err
			}
			e, err := s.Get(args[0])
			if err != nil {
				return err
			}
			_, err = fmt.Fprintln(cmd.OutOrStdout(), e.Text())
			return err
		},
	}
}

func newConfigSetCmd() *cobra.Command {
	var project bool
	cmd := &cobra.Command{
		Use:   "set KEY VALUE",
		Short: "Write one setting to the user file (or, with --project, the project file)",
		Long: `Check a value and write it to the user config file, or with --project to the
project's .hangdog.yaml (the nearest one from the working directory; if there
is none, a new one in the working directory).

A bad value is refused with what is allowed, and the file is left untouched.
Comments, key order and keys hangdog does not know are kept. Files are created
private to you (0600, in a 0700 directory).

Booleans accept true/false, yes/no, on/off and 1/0. Use "" for an empty value.
If an environment variable or a nearer layer overrides the key, set says so.`,
		Example: `  hangdog config set intervalMin 0.5
  hangdog config set watchdog.action warn
  hangdog config set decisionModel.source custom
  hangdog config set decisionModel.apiKeyEnv OPENAI_API_KEY
  hangdog config set decisionModel.url ""
  hangdog config set --project agreeChecks 3`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			key, value := args[0], args[1]
			path, layer, err := configFileToEdit(project)
			if err != nil {
				return err
			}
			if err := settings.SetInFile(path, key, value); err != nil {
				return err
			}
			return reportSet(cmd, path, layer, key, value)
		},
	}
	cmd.Flags().BoolVar(&project, "project", false, "write the project's .hangdog.yaml instead of the user file")
	return cmd
}

// configFileToEdit picks the file `config set` writes and the layer it is.
func configFileToEdit(project bool) (string, string, error) {
	if !project {
		path := settings.UserFile()
		if path == "" {
			return "", "", fmt.Errorf("cannot tell where the user config file goes: set HOME or XDG_CONFIG_HOME")
		}
		return path, settings.SourceUser, nil
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", "", fmt.Errorf("find the working directory for %s: %w", settings.ProjectFileName, err)
	}
	if path, ok := settings.FindProjectFile(wd); ok {
		return path, settings.SourceProject, nil
	}
	return filepath.Join(wd, settings.ProjectFileName), settings.SourceProject, nil
}

// reportSet confirms the write, and warns when the value written is not the
// one hangdog will use, because a higher layer overrides it.
func reportSet(cmd *cobra.Command, path, layer, key, value string) error {
	out, errOut := cmd.OutOrStdout(), cmd.ErrOrStderr()
	written, err := settings.Validate(key, value)
	if err != nil {
		return err
	}
	shown := fmt.Sprint(written)
	if shown == "" {
		shown = `""`
	}
	s, err := settings.Load(settings.Options{})
	if err != nil {
		fmt.Fprintf(out, "%s = %s (in %s)\n", key, shown, path)
		fmt.Fprintf(errOut, "warning: the value was written, but the configuration still does not load: %v\n", err)
		return nil
	}
	e, err := s.Get(key)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "%s = %s (in %s)\n", e.Key, shown, path)
	if layerRank(e.Source) > layerRank(layer) {
		fmt.Fprintf(errOut, "note: %s overrides it with %s, so that value is the one in effect\n", describeSource(e), e.Text())
	}
	return nil
}

func layerRank(source string) int {
	for i, s := range []string{settings.SourceDefault, settings.SourceUser, settings.SourceProject, settings.SourceEnv, settings.SourceFlag} {
		if s == source {
			return i
		}
	}
	return -1
}

func newConfigPathCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "path",
		Short: "Print where the user and project config files are",
		Long: `Print the user config file's path (whether or not it exists yet) and the
project file that applies in the working directory, or "none".`,
		Example: `  hangdog config path
  $EDITOR "$(hangdog config path | awk '$1 == "user" {print $2}')"`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			user := settings.UserFile()
			if user == "" {
				user = "unknown (set HOME or XDG_CONFIG_HOME)"
			}
			project := "none"
			wd, err := os.Getwd()
			if err != nil {
				return fmt.Errorf("find the working directory to look for %s: %w", settings.ProjectFileName, err)
			}
			if p, ok := settings.FindProjectFile(wd); ok {
				project = p
			}
			tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 0, 2, ' ', 0)
			fmt.Fprintf(tw, "user\t%s\nproject\t%s\n", user, project)
			return tw.Flush()
		},
	}
}
