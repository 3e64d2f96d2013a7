// pstest-tls: a Google-style gRPC service for the hostile egress tests (tests/hostile,
// pubsub_peer.hpp). It serves cloud.google.com/go/pubsub/v2/pstest's fake Pub/Sub (Publisher,
// Subscriber, SchemaService) over TLS with HTTP/2, as pubsub.googleapis.com does, and records
// every call it receives — its method, `authorization` and `x-goog-request-params` metadata — one
// JSON object a line in the -record file, before the call is served. The tests read that file to
// prove what reached "Google" through kode-gopher's egress proxy: the real token, never the
// sandbox's placeholder. Tests only: it keeps everything in memory and trusts nothing it is sent.
//
// pstest also starts its own plain gRPC listener on localhost, which nothing uses.
package main

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"net"
	"os"
	"strings"
	"sync"

	"cloud.google.com/go/pubsub/v2/apiv1/pubsubpb"
	"cloud.google.com/go/pubsub/v2/pstest"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/metadata"
)

// One received call, as the record file holds it.
type record struct {
	Method        string `json:"method"`
	Authorization string `json:"authorization"`
	RequestParams string `json:"request_params"`
}

type recorder struct {
	mu   sync.Mutex
	file *os.File
}

func (r *recorder) note(ctx context.Context, method string) {
	md, _ := metadata.FromIncomingContext(ctx)
	line, _ := json.Marshal(record{
		Method:        method,
		Authorization: strings.Join(md.Get("authorization"), ","),
		RequestParams: strings.Join(md.Get("x-goog-request-params"), ","),
	})
	r.mu.Lock()
	defer r.mu.Unlock()
	// One write a line, so a reader never sees half of one.
	if _, err := r.file.Write(append(line, '\n')); err != nil {
		log.Printf("pstest-tls: recording %s: %v", method, err)
	}
}

func main() {
	listen := flag.String("listen", "", "address:port to serve TLS gRPC on")
	certificate := flag.String("cert", "", "PEM certificate (must name pubsub.googleapis.com)")
	key := flag.String("key", "", "PEM private key of -cert")
	recordPath := flag.String("record", "", "file to append one JSON line per call to")
	flag.Parse()
	if *listen == "" || *certificate == "" || *key == "" || *recordPath == "" {
		log.Fatal("pstest-tls: -listen, -cert, -key and -record are all required")
	}
	pair, err := tls.LoadX509KeyPair(*certificate, *key)
	if err != nil {
		log.Fatalf("pstest-tls: loading %s and %s: %v", *certificate, *key, err)
	}
	file, err := os.OpenFile(*recordPath, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		log.Fatalf("pstest-tls: opening the record file: %v", err)
	}
	rec := &recorder{file: file}

	fake := pstest.NewServer()
	defer fake.Close()
	server := grpc.NewServer(
		// credentials.NewTLS offers ALPN h2, which gRPC needs.
		grpc.Creds(credentials.NewTLS(&tls.Config{Certificates: []tls.Certificate{pair}})),
		grpc.UnaryInterceptor(func(ctx context.Context, req any, info *grpc.UnaryServerInfo,
			handler grpc.UnaryHandler) (any, error) {
			rec.note(ctx, info.FullMethod)
			return handler(ctx, req)
		}),
		grpc.StreamInterceptor(func(srv any, stream grpc.ServerStream, info *grpc.StreamServerInfo,
			handler grpc.StreamHandler) error {
			rec.note(stream.Context(), info.FullMethod)
			return handler(srv, stream)
		}))
	pubsubpb.RegisterPublisherServer(server, &fake.GServer)
	pubsubpb.RegisterSubscriberServer(server, &fake.GServer)
	pubsubpb.RegisterSchemaServiceServer(server, &fake.GServer)

	listener, err := net.Listen("tcp", *listen)
	if err != nil {
		log.Fatalf("pstest-tls: listening on %s: %v", *listen, err)
	}
	fmt.Fprintf(os.Stderr, "pstest-tls: serving on %s\n", listener.Addr())
	if err := server.Serve(listener); err != nil {
		log.Fatalf("pstest-tls: %v", err)
	}
}
