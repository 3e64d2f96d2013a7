package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
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
	podCommand    []string // when set, runs each pod's server instead of sandboxServer
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
	restarts int32                            // how often the player restarted it (restartCount)
	lastExit *corev1.ContainerStateTerminated // how the previous run ended (lastState)
	stopping bool                             // set before the player stops it, so its exit is not reported as a failure
	exited   bool                             // it exited on its own and watchExit is restarting it or failing the pod
}

// serverFor is the pod's server, and whether watchExit is handling its exit (then sync leaves the
// pod alone).
func (p *player) serverFor(key string) (server *podServer, exitBeingHandled bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	server = p.servers[key]
	return server, server != nil && server.exited
}

// forget removes the pod's server from the map if it still is this one.
func (p *player) forget(key string, server *podServer) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.servers[key] == server {
		delete(p.servers, key)
	}
}

// readinessPath is the path of the first container's readinessProbe httpGet, else "/"; the
// player waits for it to answer 200 before it reports the pod Ready.
func readinessPath(pod *corev1.Pod) string {
	if len(pod.Spec.Containers) > 0 {
		if probe := pod.Spec.Containers[0].ReadinessProbe; probe != nil && probe.HTTPGet != nil && probe.HTTPGet.Path != "" {
			return probe.HTTPGet.Path
		}
	}
	return "/"
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
// its readiness path (readinessPath) answers 200 there. A failed start (the port was taken, the
// server died) frees the address and returns the error with the server's log tail; the pod is
// retried.
func (p *player) startServer(key string, pod *corev1.Pod) (*podServer, error) {
	port := containerPort(pod)
	ip, err := p.addresses.take(port)
	if err != nil {
		return nil, err
	}
	server, err := p.launch(key, pod, ip, port, 0)
	if err != nil {
		p.addresses.release(ip)
		return nil, err
	}
	return server, nil
}

// launch runs the pod's server at ip:port (its restarts-th restart) and waits until it is ready.
// The work dir is the pod's, kept across restarts like an emptyDir volume.
func (p *player) launch(key string, pod *corev1.Pod, ip string, port int, restarts int32) (*podServer, error) {
	dir := filepath.Join(p.podsDir, pod.Namespace+"_"+pod.Name+"_"+string(pod.UID)[:8])
	work := filepath.Join(dir, "work")
	home := filepath.Join(dir, "home")
	for _, d := range []string{work, home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, fmt.Errorf("making %s: %w", d, err)
		}
	}
	listen := net.JoinHostPort(ip, strconv.Itoa(port))
	// The first container's args come after the server's own, as a container's args follow its
	// image's entrypoint.
	args := pod.Spec.Containers[0].Args
	argv := append([]string{p.sandboxServer, "--listen", "tcp:" + listen, "--workdir", work, "--shares-host-network"}, args...)
	env := []string{"HOME=" + home}
	if len(p.podCommand) > 0 {
		// The pod command runs the pod's image: it gets the first container's image reference,
		// its args (JSON) and the mount paths of its emptyDir volumes (the only writable folders).
		encodedArgs, err := json.Marshal(append([]string{}, args...))
		if err != nil {
			return nil, fmt.Errorf("encoding the container's args: %w", err)
		}
		argv = append(append([]string{}, p.podCommand...), "tcp:"+listen)
		env = append(env, "KG_IMAGE="+pod.Spec.Containers[0].Image, "KG_POD_ARGS="+string(encodedArgs),
			"KG_POD_WRITABLE="+strings.Join(emptyDirMounts(pod), ":"))
	}
	process, err := startChild("kode-gopher-sandbox of "+key, filepath.Join(dir, "server.log"), argv, env)
	if err != nil {
		return nil, err
	}
	server := &podServer{uid: pod.UID, ip: ip, port: port, process: process, started: time.Now(), restarts: restarts}
	client := &http.Client{Timeout: time.Second}
	if err := waitHTTP(process, client, "http://"+listen+readinessPath(pod), "", "", 15*time.Second); err != nil {
		exitedOnItsOwn := !process.running()
		process.stop(2 * time.Second)
		if exitedOnItsOwn {
			return nil, &exitedBeforeReady{cause: err, terminated: &corev1.ContainerStateTerminated{
				ExitCode: exitCode(process.err), Reason: "Error", Message: fmt.Sprint(process.err),
				StartedAt: metav1.NewTime(server.started), FinishedAt: metav1.Now()}}
		}
		return nil, err
	}
	p.mu.Lock()
	p.servers[key] = server
	p.mu.Unlock()
	log.Printf("pod %s: kode-gopher-sandbox (pid %d) serves %s, work dir %s", key, process.cmd.Process.Pid, listen, work)
	go p.watchExit(key, pod, server)
	return server, nil
}

// exitedBeforeReady: the pod's server exited on its own before its readiness path answered (a
// container that crashes at start).
type exitedBeforeReady struct {
	cause      error
	terminated *corev1.ContainerStateTerminated
}

func (e *exitedBeforeReady) Error() string { return e.cause.Error() }

// watchExit handles the server exiting without the player stopping it, as a kubelet handles its
// container exiting: with restartPolicy Never the pod becomes Failed; otherwise the pod turns not
// Ready and the server is started again at the same address, its restartCount one higher.
func (p *player) watchExit(key string, pod *corev1.Pod, server *podServer) {
	<-server.process.exited
	p.mu.Lock()
	stopping := server.stopping
	if !stopping {
		// Stays in the map, marked, so sync does not start a second server meanwhile.
		server.exited = true
	}
	p.mu.Unlock()
	if stopping {
		p.addresses.release(server.ip)
		return
	}
	log.Printf("pod %s: kode-gopher-sandbox exited on its own (%v)\n%s",
		key, server.process.err, logTail(server.process.logPath, 10))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	terminated := &corev1.ContainerStateTerminated{ExitCode: exitCode(server.process.err), Reason: "Error",
		Message: fmt.Sprint(server.process.err), StartedAt: metav1.NewTime(server.started), FinishedAt: metav1.Now()}
	if pod.Spec.RestartPolicy == corev1.RestartPolicyNever {
		log.Printf("pod %s: restartPolicy Never; reporting the pod Failed", key)
		p.markExited(ctx, pod, terminated, true)
		p.forget(key, server)
		p.addresses.release(server.ip)
		return
	}
	p.markExited(ctx, pod, terminated, false)
	restarted, err := p.launch(key, pod, server.ip, server.port, server.restarts+1)
	if err != nil {
		log.Printf("pod %s: restarting kode-gopher-sandbox failed: %v; reporting the pod Failed", key, err)
		p.markExited(ctx, pod, terminated, true)
		p.forget(key, server)
		p.addresses.release(server.ip)
		return
	}
	restarted.lastExit = terminated
	log.Printf("pod %s: restarted kode-gopher-sandbox (restart %d)", key, restarted.restarts)
	// The pod may have been deleted meanwhile: let sync look again (it stops the server if so).
	p.queue.Add(key)
	if err := p.markRunning(ctx, pod, restarted); err != nil {
		log.Printf("pod %s: %v", key, err)
	}
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

// addressPool hands out the pod IPs 127.0.0.2 to 127.0.0.254, each to one pod at a time, in turn
// (as a cluster's IPAM does, a freed address is not handed out again at once, so a caller still
// holding a deleted pod's IP reaches nothing rather than the next pod).
type addressPool struct {
	mu    sync.Mutex
	inUse map[string]bool
	last  int // the host number handed out last
}

func newAddressPool() *addressPool { return &addressPool{inUse: map[string]bool{}, last: 1} }

// take returns an address no pod uses whose port is free (another cluster on this machine may
// hold some), marking it used.
func (a *addressPool) take(port int) (string, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for i := 1; i <= 253; i++ {
		n := (a.last-2+i)%253 + 2
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
		a.last = n
		return ip, nil
	}
	return "", fmt.Errorf("no loopback address 127.0.0.2-254 has port %d free", port)
}

func (a *addressPool) release(ip string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	delete(a.inUse, ip)
}

// emptyDirMounts: where the first container mounts the pod's emptyDir volumes.
func emptyDirMounts(pod *corev1.Pod) []string {
	emptyDirs := map[string]bool{}
	for _, volume := range pod.Spec.Volumes {
		if volume.EmptyDir != nil {
			emptyDirs[volume.Name] = true
		}
	}
	var paths []string
	for _, mount := range pod.Spec.Containers[0].VolumeMounts {
		if emptyDirs[mount.Name] {
			paths = append(paths, mount.MountPath)
		}
	}
	return paths
}
