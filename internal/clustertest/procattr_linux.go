package clustertest

import "syscall"

// childAttr puts a server process in a process group of its own, so that
// a Ctrl-C or a closing terminal reaches only the program that started it,
// which stops it in order (and drops its database); and it has the kernel
// stop the process should that program die without doing so.
func childAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
}
