#!/bin/sh
# Generate configure and Makefile.in (needs autoconf, automake).
set -e
cd "$(dirname "$0")"
mkdir -p m4
autoreconf -fi
