// Package shellcmd finds the programs a bash script runs, as far as that
// can be known without running it, for the permission rules (core/permission)
// and for policies in extensions (plugins/examples/policy-guard); it is pure
// Go with no host dependency, so guests built for wasip1 use it too.
//
// A script is parsed with a real shell parser (mvdan.cc/sh) into simple
// commands: the parts of lists and pipelines, subshells, substitutions,
// function bodies, the scripts handed to sh -c, eval, find -exec, watch and
// su -c, and those fed to a shell on its standard input (a pipe from echo
// or printf, a here-document or here-string). Each command is looked
// through wrappers (env with -S, sudo, nice, timeout, setsid, taskset,
// command, builtin, exec, xargs, …) and normalised (a program named by its
// path is also its base name; git's global options, -c aliases and -c
// settings that run programs are resolved), and brace expansion and $'…'
// quoting are applied as bash would.
//
// What cannot be known statically is marked rather than dropped, so rules
// can fail closed: a word built at run time is not Lit, a command whose
// further words are unknown is Open, and a script that does not parse, an
// eval of a run-time string, a source of a file or a shell reading a script
// from somewhere unknown yields a form with no words that is Open, which
// could be any command at all.
package shellcmd
