// dt-gomid: a Go net/http middle tier for the fidelity tests (Debian's
// golang-go). Each request is served by its connection's goroutine,
// which asks the upstream through one shared http.Client (a Transport
// keeping 2 idle connections per host, dialing more under load); Go's
// scheduler runs the goroutines on GOMAXPROCS threads, and the
// Transport writes and reads each upstream connection from goroutines
// of its own, so a request's read, its upstream write and its answer's
// read are made by whichever threads run them.
//
//	dt-gomid PORT HOST:PORT LOG
//
// Ground truth, as dt-httpd's: for every request, when its handler
// starts (on the thread that has just read it), that thread looks for
// its own id in /sys/distributed-tracer/list_pid and appends
// "PATH traced|untraced TID" to LOG. An upstream failure answers 502.
// The goroutine stays on its thread while it looks (LockOSThread): the
// scheduler may move it to another thread at any system call, and the
// list it read would then be compared with the other thread's id.
package main

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
)

var (
	client   = &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 2}}
	logMu    sync.Mutex
	logFile  *os.File
	upstream string
)

// traced says whether the calling thread is in list_pid, and its id.
func traced() (bool, int) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	tid := syscall.Gettid()
	b, err := os.ReadFile("/sys/distributed-tracer/list_pid")
	if err != nil {
		return false, tid
	}
	me := strconv.Itoa(tid) + " "
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, me) {
			return true, tid
		}
	}
	return false, tid
}

func handle(w http.ResponseWriter, r *http.Request) {
	t := "untraced"
	on, tid := traced()
	if on {
		t = "traced"
	}
	logMu.Lock()
	fmt.Fprintf(logFile, "%s %s %d\n", r.URL.Path, t, tid)
	logMu.Unlock()
	resp, err := client.Get("http://" + upstream + r.URL.Path)
	if err != nil {
		w.WriteHeader(http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	w.WriteHeader(resp.StatusCode)
	io.Copy(w, resp.Body)
}

func main() {
	if len(os.Args) != 4 || !strings.Contains(os.Args[2], ":") {
		fmt.Fprintln(os.Stderr, "usage: dt-gomid PORT HOST:PORT LOG")
		os.Exit(2)
	}
	upstream = os.Args[2]
	var err error
	logFile, err = os.OpenFile(os.Args[3], os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		fmt.Fprintln(os.Stderr, "dt-gomid:", err)
		os.Exit(1)
	}
	http.HandleFunc("/", handle)
	fmt.Fprintln(os.Stderr, "dt-gomid:", http.ListenAndServe(":"+os.Args[1], nil))
	os.Exit(1)
}
