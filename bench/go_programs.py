"""The Go programs the benchmark runs. Each takes a nonce that changes the source (and so the
build) without changing what it does: a different nonce is a one-line edit, the same nonce is an
identical resubmission."""

HELLO = """package main

import "fmt"

// bench nonce {nonce}
func main() {{
	fmt.Println("hello, gopher")
}}
"""

# A wrapped snippet (package other than main, func run): the edited line is the greeting.
EDITED_SNIPPET = """package snippet

import (
	"context"
	"fmt"
	"strings"
)

func run(ctx context.Context) (any, error) {{
	words := []string{{"one", "line", "edited"}}
	greeting := "edit {nonce}"
	fmt.Println(greeting, strings.Join(words, " "))
	return map[string]any{{"greeting": greeting, "words": len(words)}}, nil
}}
"""

# 1 MiB of stdout: 16384 lines of 64 bytes.
MIB_OUTPUT = """package main

import (
	"bufio"
	"os"
	"strings"
)

// bench nonce {nonce}
func main() {{
	w := bufio.NewWriterSize(os.Stdout, 1<<16)
	line := strings.Repeat("g", 63) + "\\n"
	for i := 0; i < 16384; i++ {{
		w.WriteString(line)
	}}
	w.Flush()
}}
"""

# Lists the objects of a bucket on fake-gcs-server; {emulator} is host:port on loopback.
STORAGE = """package main

import (
	"context"
	"fmt"
	"os"

	"cloud.google.com/go/storage"
	"google.golang.org/api/iterator"
)

// bench nonce {nonce}
func main() {{
	os.Setenv("STORAGE_EMULATOR_HOST", "{emulator}")
	ctx := context.Background()
	client, err := storage.NewClient(ctx)
	if err != nil {{
		panic(err)
	}}
	defer client.Close()
	it := client.Bucket("{bucket}").Objects(ctx, nil)
	n := 0
	for {{
		attrs, err := it.Next()
		if err == iterator.Done {{
			break
		}}
		if err != nil {{
			panic(err)
		}}
		fmt.Println(attrs.Name, attrs.Size)
		n++
	}}
	fmt.Println("objects:", n)
}}
"""

# A typical data-shaping snippet (wrapped, func run): decode 2000 JSON records into structs,
# filter, group, aggregate, sort, and return a summary; the kind of thing an agent asks for
# between two API calls.
DATA_SHAPING = """package shaping

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

type order struct {{
	ID       int     `json:"id"`
	Customer string  `json:"customer"`
	Region   string  `json:"region"`
	Amount   float64 `json:"amount"`
	Status   string  `json:"status"`
}}

// bench nonce {nonce}
func run(ctx context.Context) (any, error) {{
	regions := []string{{"eu", "us", "apac"}}
	statuses := []string{{"paid", "open", "paid", "refunded"}}
	var raw strings.Builder
	raw.WriteString("[")
	for i := 0; i < 2000; i++ {{
		if i > 0 {{
			raw.WriteString(",")
		}}
		fmt.Fprintf(&raw, `{{"id":%d,"customer":"c%03d","region":"%s","amount":%d.%02d,"status":"%s"}}`,
			i, i%137, regions[i%3], (i*37)%500, i%100, statuses[i%4])
	}}
	raw.WriteString("]")
	var orders []order
	if err := json.Unmarshal([]byte(raw.String()), &orders); err != nil {{
		return nil, err
	}}
	totals := map[string]float64{{}}
	counts := map[string]int{{}}
	byCustomer := map[string]float64{{}}
	for _, o := range orders {{
		if o.Status != "paid" {{
			continue
		}}
		totals[o.Region] += o.Amount
		counts[o.Region]++
		byCustomer[o.Customer] += o.Amount
	}}
	names := make([]string, 0, len(totals))
	for name := range totals {{
		names = append(names, name)
	}}
	sort.Strings(names)
	summary := []map[string]any{{}}
	summary = summary[:0]
	for _, name := range names {{
		summary = append(summary, map[string]any{{
			"region": name, "orders": counts[name], "total": float64(int(totals[name]*100)) / 100,
		}})
	}}
	customers := make([]string, 0, len(byCustomer))
	for c := range byCustomer {{
		customers = append(customers, c)
	}}
	sort.Slice(customers, func(i, j int) bool {{
		if byCustomer[customers[i]] != byCustomer[customers[j]] {{
			return byCustomer[customers[i]] > byCustomer[customers[j]]
		}}
		return customers[i] < customers[j]
	}})
	fmt.Println("shaped", len(orders), "orders")
	return map[string]any{{"regions": summary, "top_customers": customers[:5]}}, nil
}}
"""

# CPU-bound (issue 27): the primes below 2,000,000 by a sieve. Interpreted it runs longer than a
# build and a compiled run together, so auto must send it to the compiler.
PRIME_SIEVE = """package main

import "fmt"

// bench nonce {nonce}
func main() {{
	const n = 2_000_000
	composite := make([]bool, n+1)
	count := 0
	for i := 2; i <= n; i++ {{
		if composite[i] {{
			continue
		}}
		count++
		for j := i * 2; j <= n; j += i {{
			composite[j] = true
		}}
	}}
	fmt.Println("primes below 2000000:", count)
}}
"""

# Sealed credentials (issue 25; sealed_bench.py): cloud.google.com/go/storage with nothing
# test-specific lists a bucket of "storage.googleapis.com" {listings} times through the daemon's
# egress proxy (which terminates TLS there in every credentials mode, and in mode sealed puts the
# real token in), then the same {listings} listings through a blind CONNECT tunnel to
# {tunnel_host} (an allowed name that is not a Google API host: relayed unread, the program's own
# TLS to the fake, whose certificate it is given) — each timed in the program, so the two paths
# compare within one process. The first listing of each path (connection and TLS set-up) is timed
# apart from the rest.
SEALED_STORAGE = """package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net/http"
	"strings"
	"time"

	"cloud.google.com/go/storage"
	"golang.org/x/oauth2"
	"golang.org/x/oauth2/google"
	"google.golang.org/api/iterator"
	"google.golang.org/api/option"
)

// bench nonce {nonce}
const tunnelCert = `{tunnel_cert}`

func listings(ctx context.Context, client *storage.Client, times int) (first, rest time.Duration, n int) {{
	for i := 0; i < times; i++ {{
		start := time.Now()
		it := client.Bucket("{bucket}").Objects(ctx, nil)
		n = 0
		for {{
			_, err := it.Next()
			if err == iterator.Done {{
				break
			}}
			if err != nil {{
				panic(err)
			}}
			n++
		}}
		if i == 0 {{
			first = time.Since(start)
		}} else {{
			rest += time.Since(start)
		}}
	}}
	return first, rest, n
}}

func main() {{
	ctx := context.Background()
	tokens, err := google.DefaultTokenSource(ctx, storage.ScopeReadOnly)
	if err != nil {{
		panic(err)
	}}
	token, err := tokens.Token()
	if err != nil {{
		panic(err)
	}}
	client, err := storage.NewClient(ctx)
	if err != nil {{
		panic(err)
	}}
	defer client.Close()
	first, rest, n := listings(ctx, client, {listings})

	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM([]byte(tunnelCert))
	base := &http.Transport{{Proxy: http.ProxyFromEnvironment, ForceAttemptHTTP2: true,
		TLSClientConfig: &tls.Config{{RootCAs: pool}}}}
	tunnelled, err := storage.NewClient(ctx, option.WithEndpoint("https://{tunnel_host}/storage/v1/"),
		option.WithHTTPClient(&http.Client{{Transport: &oauth2.Transport{{Source: tokens, Base: base}}}}))
	if err != nil {{
		panic(err)
	}}
	defer tunnelled.Close()
	tunnelFirst, tunnelRest, tunnelN := listings(ctx, tunnelled, {listings})

	fmt.Println("objects:", n, tunnelN)
	fmt.Println("placeholder token:", strings.HasPrefix(token.AccessToken, "kg-sealed."))
	fmt.Println("proxy_first_us:", first.Microseconds())
	fmt.Println("proxy_rest_us:", rest.Microseconds())
	fmt.Println("tunnel_first_us:", tunnelFirst.Microseconds())
	fmt.Println("tunnel_rest_us:", tunnelRest.Microseconds())
}}
"""
