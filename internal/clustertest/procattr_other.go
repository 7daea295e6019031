//go:build !linux

package clustertest

import "syscall"

// childAttr puts a server process in a process group of its own, so that
// a Ctrl-C or a closing terminal reaches only the program that started it,
// which stops it in order.
func childAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }
