package main

import "context"

func (a *app) cmdExt(ctx context.Context, args []string) error {
	return usagef("pi ext: no subcommands yet")
}
