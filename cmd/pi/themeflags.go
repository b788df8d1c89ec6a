package main

import "github.com/spf13/pflag"

// themeFlags choose the interactive session's colours, as the established
// harness's flags do. They are read only when the session is interactive
// (themes_ui.go): pi -p loads no theme.
type themeFlags struct {
	paths    []string // --theme PATH (repeatable): theme files or directories
	use      string   // --use-theme NAME: this run's theme, not saved
	noThemes bool     // --no-themes: no discovered themes, only --theme ones
}

func (t *themeFlags) register(fs *pflag.FlagSet) {
	fs.StringArrayVar(&t.paths, "theme", nil, "load themes from PATH (a theme file or a directory of them); repeatable")
	fs.StringVar(&t.use, "use-theme", "", "the interactive session's theme for this run, a `NAME` or LIGHT/DARK, without saving it")
	fs.BoolVar(&t.noThemes, "no-themes", false, "load no discovered themes (the themes setting, .pi/themes, the agent dir's themes); --theme still loads")
}
