package main

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	listers "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/util/workqueue"
)

type player struct {
	client        kubernetes.Interface
	pods          listers.PodLister
	queue         workqueue.TypedRateLimitingInterface[string]
	nodeName      string
	nodeLabels    map[string]string
	namespace     string
	sandboxServer string
	podsDir       string
	addresses     *addressPool

	mu      sync.Mutex
	servers map[string]*podServer // by namespace/name
}

// podServer is the kode-gopher-sandbox playing one pod's container.
type podServer struct {
	uid      types.UID
	ip       string
	port     int
	process  *child
	started  time.Time
	stopping bool // set before the player stops it, so its exit is not reported as a failure
}

func (p *player) serverFor(key string) *podServer {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.servers[key]
}

// containerPort is the first port the pod's first container declares, else 8888 (the port
// kode-gopher-sandbox serves in its image).
func containerPort(pod *corev1.Pod) int {
	if len(pod.Spec.Containers) > 0 && len(pod.Spec.Containers[0].Ports) > 0 {
		return int(pod.Spec.Containers[0].Ports[0].ContainerPort)
	}
	return 8888
}

// startServer starts the pod's kode-gopher-sandbox on a free loopback address and waits until
// GET / answers there. A failed start (the port was taken, the server died) frees the address and
// returns the error with the server's log tail; the pod is retried.
func (p *player) startServer(ctx context.Context, key string, pod *corev1.Pod) (*podServer, error) {
	port := containerPort(pod)
	ip, err := p.addresses.take(port)
	if err != nil {
		return nil, err
	}
	dir := filepath.Join(p.podsDir, pod.Namespace+"_"+pod.Name+"_"+string(pod.UID)[:8])
	work := filepath.Join(dir, "work")
	home := filepath.Join(dir, "home")
	for _, d := range []string{work, home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			p.addresses.release(ip)
			return nil, fmt.Errorf("making %s: %w", d, err)
		}
	}
	listen := net.JoinHostPort(ip, strconv.Itoa(port))
	process, err := startChild("kode-gopher-sandbox of "+key, filepath.Join(dir, "server.log"),
		[]string{p.sandboxServer, "--listen", "tcp:" + listen, "--workdir", work, "--shares-host-network"},
		[]string{"HOME=" + home})
	if err != nil {
		p.addresses.release(ip)
		return nil, err
	}
	server := &podServer{uid: pod.UID, ip: ip, port: port, process: process, started: time.Now()}
	client := &http.Client{Timeout: time.Second}
	if err := waitHTTP(process, client, "http://"+listen+"/", "", "", 15*time.Second); err != nil {
		process.stop(2 * time.Second)
		p.addresses.release(ip)
		return nil, err
	}
	p.mu.Lock()
	p.servers[key] = server
	p.mu.Unlock()
	log.Printf("pod %s: kode-gopher-sandbox (pid %d) serves %s, work dir %s", key, process.cmd.Process.Pid, listen, work)
	go p.watchExit(key, pod.Namespace, pod.Name, string(pod.UID), server)
	return server, nil
}

// watchExit reports the pod Failed if its server exits without the player stopping it.
func (p *player) watchExit(key, namespace, name, uid string, server *podServer) {
	<-server.process.exited
	p.mu.Lock()
	stopping := server.stopping
	if p.servers[key] == server {
		delete(p.servers, key)
	}
	p.mu.Unlock()
	p.addresses.release(server.ip)
	if stopping {
		return
	}
	log.Printf("pod %s: kode-gopher-sandbox exited on its own (%v); reporting the pod Failed\n%s",
		key, server.process.err, logTail(server.process.logPath, 10))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	p.markFailed(ctx, namespace, name, uid, server.process.err)
}

func (p *player) stopServer(key, why string) {
	p.mu.Lock()
	server := p.servers[key]
	if server != nil {
		server.stopping = true
		delete(p.servers, key)
	}
	p.mu.Unlock()
	if server == nil {
		return
	}
	server.process.stop(3 * time.Second)
	log.Printf("pod %s: %s; stopped its kode-gopher-sandbox at %s", key, why, server.ip)
}

func (p *player) stopAll() {
	p.mu.Lock()
	keys := make([]string, 0, len(p.servers))
	for key := range p.servers {
		keys = append(keys, key)
	}
	p.mu.Unlock()
	for _, key := range keys {
		p.stopServer(key, "the kubelet player is stopping")
	}
}

func exitCode(err error) int32 {
	var exitErr *exec.ExitError
	if errors.As(err, &exitErr) {
		return int32(exitErr.ExitCode())
	}
	return 1
}

// addressPool hands out the pod IPs 127.0.0.2 to 127.0.0.254, each to one pod at a time.
type addressPool struct {
	mu    sync.Mutex
	inUse map[string]bool
}

func newAddressPool() *addressPool { return &addressPool{inUse: map[string]bool{}} }

// take returns an address no pod uses whose port is free (another cluster on this machine may
// hold some), marking it used.
func (a *addressPool) take(port int) (string, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for n := 2; n <= 254; n++ {
		ip := "127.0.0." + strconv.Itoa(n)
		if a.inUse[ip] {
			continue
		}
		l, err := net.Listen("tcp", net.JoinHostPort(ip, strconv.Itoa(port)))
		if err != nil {
			continue
		}
		l.Close()
		a.inUse[ip] = true
		return ip, nil
	}
	return "", fmt.Errorf("no loopback address 127.0.0.2-254 has port %d free", port)
}

func (a *addressPool) release(ip string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	delete(a.inUse, ip)
}
