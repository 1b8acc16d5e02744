// Command conversion-webhook serves CRD conversion webhooks for the ExternalJob example
// kind (batch.backupkit.io v1, v2 and the v3 hub) over TLS, with convert's handler.
//
// Without certificate files it makes a self-signed certificate for --hosts and writes it
// to --ca-out, so the API server can trust it; --print-crd prints the
// CustomResourceDefinition (JSON, which kubectl applies as is) whose conversion webhook
// points at --url with that certificate as its caBundle:
//
//	go run ./examples/conversion-webhook --addr 127.0.0.1:9443 --ca-out ca.pem &
//	go run ./examples/conversion-webhook --print-crd --ca-file ca.pem --url https://127.0.0.1:9443/convert | kubectl apply -f -
package main

import (
	"context"
	"crypto/tls"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"time"

	"github.com/backupkit/backupkit/convert"
	"github.com/backupkit/backupkit/examples/externaljob"
)

// Path is where the webhook is served.
const Path = "/convert"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

type flags struct {
	addr, certFile, keyFile, caOut, hosts string
	printCRD                              bool
	url, caFile                           string
}

// run is the whole program; it returns the exit code.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	f := &flags{}
	fs := flag.NewFlagSet("conversion-webhook", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&f.addr, "addr", "127.0.0.1:9443", "address to serve on")
	fs.StringVar(&f.certFile, "cert-file", "", "TLS certificate (PEM); with --key-file. Default: a self-signed certificate for --hosts")
	fs.StringVar(&f.keyFile, "key-file", "", "TLS private key (PEM)")
	fs.StringVar(&f.hosts, "hosts", "127.0.0.1,localhost", "comma-separated names and IPs of the self-signed certificate")
	fs.StringVar(&f.caOut, "ca-out", "", "write the self-signed certificate (the CRD's caBundle) to this file")
	fs.BoolVar(&f.printCRD, "print-crd", false, "print the ExternalJob CRD pointing at --url, trusting --ca-file, and exit")
	fs.StringVar(&f.url, "url", "https://127.0.0.1:9443"+Path, "the webhook URL the CRD names (with --print-crd)")
	fs.StringVar(&f.caFile, "ca-file", "", "the PEM certificate the CRD trusts (with --print-crd)")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: conversion-webhook [flags]\n\nServes CRD conversion webhooks for ExternalJob (batch.backupkit.io v1, v2, v3).\n\nFlags:\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "conversion-webhook: unexpected arguments: %v\n", fs.Args())
		return 2
	}
	var err error
	if f.printCRD {
		err = printCRD(stdout, f)
	} else {
		err = serve(ctx, f, stderr)
	}
	if err != nil {
		fmt.Fprintln(stderr, "conversion-webhook:", err)
		return 1
	}
	return 0
}

func printCRD(w io.Writer, f *flags) error {
	if f.caFile == "" {
		return errors.New("--print-crd needs --ca-file")
	}
	ca, err := os.ReadFile(f.caFile)
	if err != nil {
		return err
	}
	return writeCRD(w, f.url, ca)
}

// serve runs the webhook until ctx ends.
func serve(ctx context.Context, f *flags, stderr io.Writer) error {
	var cert tls.Certificate
	var err error
	switch {
	case f.certFile != "" || f.keyFile != "":
		if f.certFile == "" || f.keyFile == "" {
			return errors.New("--cert-file and --key-file go together")
		}
		cert, err = tls.LoadX509KeyPair(f.certFile, f.keyFile)
	default:
		var certPEM []byte
		cert, certPEM, err = selfSigned(strings.Split(f.hosts, ","), time.Now())
		if err == nil && f.caOut != "" {
			err = os.WriteFile(f.caOut, certPEM, 0o644)
		}
	}
	if err != nil {
		return err
	}
	registry, err := externaljob.Registry()
	if err != nil {
		return err
	}
	mux := http.NewServeMux()
	mux.Handle(Path, convert.NewWebhookHandler(registry))
	srv := &http.Server{
		Handler:           mux,
		TLSConfig:         &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12},
		ReadHeaderTimeout: 10 * time.Second,
	}
	ln, err := net.Listen("tcp", f.addr)
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "serving ExternalJob conversions on https://%s%s\n", ln.Addr(), Path)
	done := make(chan error, 1)
	go func() { done <- srv.ServeTLS(ln, "", "") }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := srv.Shutdown(shutdown); err != nil {
			return err
		}
		<-done
		return nil
	}
}
