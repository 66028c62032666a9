package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"
)

// caught is the signal that stopped the current command (nil: none).
var caught atomic.Value

// signalContext returns a context cancelled on SIGINT or SIGTERM; the
// signal is remembered so that main exits with the shell's status for it
// (130, 143) after the command has stopped cleanly. A second signal is
// left to Go's default handling (immediate exit).
func signalContext() (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(context.Background())
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case sig := <-ch:
			caught.Store(sig)
			signal.Stop(ch)
			cancel(fmt.Errorf("stopped by %v", sig))
		case <-done:
		}
	}()
	return ctx, func() {
		close(done)
		signal.Stop(ch)
		cancel(nil)
	}
}

// signalStatus is the exit status for a command stopped by a signal:
// 128 + its number, as shells report it; 0 when none was caught.
func signalStatus() int {
	sig, ok := caught.Load().(syscall.Signal)
	if !ok {
		return 0
	}
	return 128 + int(sig)
}
