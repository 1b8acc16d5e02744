package main

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// syncBuffer is a bytes.Buffer safe for the server goroutine and the test at once.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.String()
}

func TestServeConvertsOverTLS(t *testing.T) {
	dir := t.TempDir()
	caFile := filepath.Join(dir, "ca.pem")
	ctx, cancel := context.WithCancel(context.Background())
	var stderr syncBuffer
	exit := make(chan int, 1)
	go func() {
		exit <- run(ctx, []string{"--addr", "127.0.0.1:0", "--ca-out", caFile}, &bytes.Buffer{}, &stderr)
	}()

	addrLine := regexp.MustCompile(`serving ExternalJob conversions on (https://\S+)`)
	var url string
	require.Eventually(t, func() bool {
		m := addrLine.FindStringSubmatch(stderr.String())
		if m != nil {
			url = m[1]
		}
		return m != nil
	}, 10*time.Second, 10*time.Millisecond, "server did not start: %s", stderr.String())

	caPEM, err := os.ReadFile(caFile)
	require.NoError(t, err)
	pool := x509.NewCertPool()
	require.True(t, pool.AppendCertsFromPEM(caPEM))
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}, Timeout: 10 * time.Second}

	review := `{"apiVersion":"apiextensions.k8s.io/v1","kind":"ConversionReview","request":{"uid":"req-1","desiredAPIVersion":"batch.backupkit.io/v3","objects":[
		{"apiVersion":"batch.backupkit.io/v1","kind":"ExternalJob","metadata":{"name":"nightly","namespace":"shop","uid":"u1","labels":{"team":"a"}},
		 "spec":{"runAt":"2026-12-01T02:00:00Z","command":["/bin/report"]}}]}}`
	resp, err := client.Post(url, "application/json", strings.NewReader(review))
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	var out struct {
		APIVersion string `json:"apiVersion"`
		Response   struct {
			UID              string                  `json:"uid"`
			ConvertedObjects []map[string]any        `json:"convertedObjects"`
			Result           struct{ Status string } `json:"result"`
		} `json:"response"`
	}
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&out))
	require.Equal(t, "apiextensions.k8s.io/v1", out.APIVersion)
	require.Equal(t, "req-1", out.Response.UID)
	require.Equal(t, "Success", out.Response.Result.Status)
	require.Len(t, out.Response.ConvertedObjects, 1)
	obj := out.Response.ConvertedObjects[0]
	require.Equal(t, "batch.backupkit.io/v3", obj["apiVersion"])
	require.Equal(t, map[string]any{"team": "a"}, obj["metadata"].(map[string]any)["labels"])

	cancel()
	select {
	case code := <-exit:
		require.Equal(t, 0, code, stderr.String())
	case <-time.After(10 * time.Second):
		t.Fatal("server did not stop on cancellation")
	}
}

func TestPrintCRD(t *testing.T) {
	dir := t.TempDir()
	caFile := filepath.Join(dir, "ca.pem")
	_, caPEM, err := selfSigned([]string{"127.0.0.1"}, time.Now())
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(caFile, caPEM, 0o600))

	var stdout, stderr bytes.Buffer
	require.Equal(t, 0, run(context.Background(), []string{"--print-crd", "--ca-file", caFile, "--url", "https://127.0.0.1:8443/convert"}, &stdout, &stderr), stderr.String())
	var crd struct {
		Kind     string
		Metadata struct{ Name string }
		Spec     struct {
			Versions []struct {
				Name            string
				Served, Storage bool
			}
			Conversion struct {
				Strategy string
				Webhook  struct {
					ClientConfig struct {
						URL      string
						CABundle []byte
					}
				}
			}
		}
	}
	require.NoError(t, json.Unmarshal(stdout.Bytes(), &crd))
	require.Equal(t, "externaljobs.batch.backupkit.io", crd.Metadata.Name)
	require.Equal(t, "Webhook", crd.Spec.Conversion.Strategy)
	require.Equal(t, "https://127.0.0.1:8443/convert", crd.Spec.Conversion.Webhook.ClientConfig.URL)
	require.Equal(t, caPEM, crd.Spec.Conversion.Webhook.ClientConfig.CABundle)
	require.Len(t, crd.Spec.Versions, 3)
	require.True(t, crd.Spec.Versions[2].Storage)
}

func TestFlagErrors(t *testing.T) {
	tests := []struct {
		name   string
		args   []string
		code   int
		stderr string
	}{
		{"help", []string{"--help"}, 0, "Usage: conversion-webhook"},
		{"print-crd without ca", []string{"--print-crd"}, 1, "--print-crd needs --ca-file"},
		{"cert without key", []string{"--cert-file", "c.pem"}, 1, "--cert-file and --key-file go together"},
		{"missing cert files", []string{"--cert-file", "absent.pem", "--key-file", "absent.key"}, 1, "no such file"},
		{"stray argument", []string{"x"}, 2, "unexpected arguments"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			require.Equal(t, tt.code, run(context.Background(), tt.args, &stdout, &stderr))
			require.Contains(t, stderr.String(), tt.stderr)
		})
	}
}
