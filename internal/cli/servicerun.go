package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"time"

	"github.com/kardianos/service"
)

// RunService runs serve. Started by the Windows service manager, serve must
// answer its start and stop controls (or be killed after 30 s), so it runs
// under kardianos/service there, in the folder install recorded and with
// its log in a file. systemd and launchd need nothing of the kind: they
// send SIGTERM, which serve's context already ends on.
func RunService(ctx context.Context, env Env, serve func(context.Context, Env) error) error {
	if runtime.GOOS != "windows" || service.Interactive() {
		return serve(ctx, env)
	}
	dir := env.Getenv(envServiceDir)
	if dir != "" {
		if err := os.Chdir(dir); err != nil {
			return err
		}
	}
	logFile, err := os.OpenFile(filepath.Join(dir, serviceLogName), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	defer logFile.Close()
	env.Stdout, env.Stderr = logFile, logFile
	name := env.Getenv(envServiceName)
	if name == "" {
		name = "mdqs"
	}
	p := &managedServe{parent: ctx, env: env, serve: serve}
	s, err := service.New(p, &service.Config{Name: name})
	if err != nil {
		return err
	}
	err = s.Run()
	if err != nil {
		fmt.Fprintf(logFile, "%s mdqs service %s: %v\n", time.Now().Format(time.RFC3339), name, err)
	}
	return err
}

// managedServe runs serve between the service manager's start and stop.
type managedServe struct {
	parent context.Context
	env    Env
	serve  func(context.Context, Env) error
	cancel context.CancelFunc
	done   chan error
}

func (m *managedServe) Start(s service.Service) error {
	ctx, cancel := context.WithCancel(m.parent)
	m.cancel, m.done = cancel, make(chan error, 1)
	go func() {
		err := m.serve(ctx, m.env)
		m.done <- err
		if ctx.Err() == nil {
			// serve ended on its own (a configuration error, a busy
			// port): stop the service so the manager records it, with
			// the error Stop returns.
			fmt.Fprintf(m.env.Stderr, "%s mdqs stopped by itself: %v\n", time.Now().Format(time.RFC3339), err)
			s.Stop()
		}
	}()
	return nil
}

func (m *managedServe) Stop(service.Service) error {
	m.cancel()
	return <-m.done
}
