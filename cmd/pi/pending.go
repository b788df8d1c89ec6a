package main

import (
	"context"
	"errors"
)

func (a *app) cmdExt(ctx context.Context, args []string) error {
	return errors.New("pi ext: not built yet")
}

func (a *app) cmdSession(ctx context.Context, args []string) error {
	return errors.New("pi session: not built yet")
}

func (a *app) cmdRun(ctx context.Context, args []string) error {
	return usagef("unknown command %q (see pi --help)", args[0])
}
