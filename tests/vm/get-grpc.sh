#!/bin/sh
# The fidelity test's gRPC servers' libraries, Debian's, unpacked into
# the build tree (never installed on this machine):
#   - python3-grpcio (gRPC's C core under Python; used without
#     protobuf) and the libraries a machine without it may lack
#     (libabsl20220623, libre2-9, libc-ares2), run by the guests with
#     this machine's python3 through OUTDIR/bin/python3-grpc;
#   - grpc-go's sources and those it imports (golang-google-grpc-dev
#     and its -dev packages), a GOPATH in OUTDIR/usr/share/gocode that
#     dt-grpcgo is built with (tests/vm/local.mk).
#
# usage: get-grpc.sh OUTDIR APT_DOWNLOAD_SH
#   OUTDIR/bin/python3-grpc appears only once it imports grpc.
set -eu

out=$1 download=$2 me=tests/vm/get-grpc.sh
. "$(dirname "$0")/debs-lib.sh"

debs_unpack grpc python3-grpcio libabsl20220623 libre2-9 libc-ares2 \
	golang-google-grpc-dev golang-golang-x-net-dev golang-golang-x-text-dev \
	golang-golang-x-sys-dev golang-google-genproto-dev \
	golang-github-golang-protobuf-1-5-dev golang-google-protobuf-dev
[ -d usr/lib/python3/dist-packages/grpc ] ||
	die "the packages have no usr/lib/python3/dist-packages/grpc"
[ -d usr/share/gocode/src/google.golang.org/grpc ] ||
	die "the packages have no usr/share/gocode/src/google.golang.org/grpc"
debs_wrap python3-grpc "PYTHONPATH=$out/usr/lib/python3/dist-packages LD_LIBRARY_PATH=$out/usr/lib/x86_64-linux-gnu" \
	python3
debs_done "$out/bin/python3-grpc -c 'import grpc; print(grpc.__version__)'"
