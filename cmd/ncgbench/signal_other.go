//go:build !unix

package main

import "os"

var sigterm = os.Interrupt
