package main

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"
)

// waitHTTP polls url until it answers 200 (and, if wantBody is set, the body contains it), the
// process that should serve it exits, or the timeout passes; the error says which and carries the
// process's log tail.
func waitHTTP(c *child, client *http.Client, url, bearer, wantBody string, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	last := "no answer yet"
	for {
		if !c.running() {
			return fmt.Errorf("%s exited (%v) before %s answered\n%s", c.name, c.err, url, logTail(c.logPath, 30))
		}
		req, _ := http.NewRequest(http.MethodGet, url, nil)
		if bearer != "" {
			req.Header.Set("Authorization", "Bearer "+bearer)
		}
		resp, err := client.Do(req)
		if err != nil {
			last = err.Error()
		} else {
			body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK && strings.Contains(string(body), wantBody) {
				return nil
			}
			last = fmt.Sprintf("HTTP %d: %s", resp.StatusCode, strings.TrimSpace(string(body)))
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s did not become healthy at %s within %s (last: %s)\n%s",
				c.name, url, timeout, last, logTail(c.logPath, 30))
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// httpClientTrusting is an HTTP client that trusts only the CA in caFile (nil: plain HTTP).
func httpClientTrusting(caFile string) (*http.Client, error) {
	transport := &http.Transport{}
	if caFile != "" {
		pem, err := os.ReadFile(caFile)
		if err != nil {
			return nil, fmt.Errorf("reading CA %s: %w", caFile, err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("CA %s holds no PEM certificate", caFile)
		}
		transport.TLSClientConfig = &tls.Config{RootCAs: pool}
	}
	return &http.Client{Transport: transport, Timeout: 2 * time.Second}, nil
}
