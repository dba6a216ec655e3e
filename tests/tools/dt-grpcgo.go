// dt-grpcgo: the fidelity tests' gRPC server in Go (Debian's
// golang-google-grpc-dev, built without modules; no protobuf: every
// method takes and returns raw bytes), behind nginx's grpc_pass, over a
// UNIX socket and over TCP. gRPC's transport reads each connection in a
// goroutine of its own and runs each call in a new goroutine; the call
// asks the upstream through one shared http.Client, whose connections
// are written and read by goroutines of their own.
//
//	dt-grpcgo UNIX_PATH TCP_PORT HOST:PORT LOG
//
// Ground truth, as dt-gomid's: for every call, once its message (a
// path, "/f-grpcgo/1") is read, the thread running the call looks for
// its own id in /sys/distributed-tracer/list_pid and appends
// "PATH traced|untraced TID" to LOG; the call then asks the upstream
// for that path and answers with its body. An upstream failure answers
// UNAVAILABLE.
package main

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

var (
	client   = &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 2}}
	logMu    sync.Mutex
	logFile  *os.File
	upstream string
)

// raw is a codec of plain bytes: a message is what it holds.
type raw struct{}

func (raw) Marshal(v interface{}) ([]byte, error) { return *v.(*[]byte), nil }

func (raw) Unmarshal(data []byte, v interface{}) error {
	*v.(*[]byte) = append([]byte(nil), data...)
	return nil
}

func (raw) Name() string   { return "raw" }
func (raw) String() string { return "raw" }

// traced says whether the calling thread is in list_pid (in a request
// it has not answered: a line that ends with "answered" does not
// count), and its id. The goroutine stays on its thread while it looks.
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
		if strings.HasPrefix(l, me) && !strings.HasSuffix(l, " answered") {
			return true, tid
		}
	}
	return false, tid
}

// call serves any method: one message in, the upstream's body out.
func call(_ interface{}, st grpc.ServerStream) error {
	var req []byte
	if err := st.RecvMsg(&req); err != nil {
		return err
	}
	t := "untraced"
	on, tid := traced()
	if on {
		t = "traced"
	}
	logMu.Lock()
	fmt.Fprintf(logFile, "%s %s %d\n", req, t, tid)
	logMu.Unlock()
	resp, err := client.Get("http://" + upstream + string(req))
	if err != nil {
		return status.Error(codes.Unavailable, err.Error())
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || resp.StatusCode != http.StatusOK {
		return status.Error(codes.Unavailable, "upstream failed")
	}
	return st.SendMsg(&body)
}

func main() {
	if len(os.Args) != 5 || !strings.Contains(os.Args[3], ":") {
		fmt.Fprintln(os.Stderr, "usage: dt-grpcgo UNIX_PATH TCP_PORT HOST:PORT LOG")
		os.Exit(2)
	}
	upstream = os.Args[3]
	var err error
	logFile, err = os.OpenFile(os.Args[4], os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		fmt.Fprintln(os.Stderr, "dt-grpcgo:", err)
		os.Exit(1)
	}
	os.Remove(os.Args[1])
	lu, err := net.Listen("unix", os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, "dt-grpcgo:", err)
		os.Exit(1)
	}
	// nginx's workers run as nobody.
	os.Chmod(os.Args[1], 0o666)
	lt, err := net.Listen("tcp", "127.0.0.1:"+os.Args[2])
	if err != nil {
		fmt.Fprintln(os.Stderr, "dt-grpcgo:", err)
		os.Exit(1)
	}
	s := grpc.NewServer(grpc.CustomCodec(raw{}), grpc.UnknownServiceHandler(call))
	go func() {
		fmt.Fprintln(os.Stderr, "dt-grpcgo:", s.Serve(lu))
		os.Exit(1)
	}()
	fmt.Fprintln(os.Stderr, "dt-grpcgo:", s.Serve(lt))
	os.Exit(1)
}
