package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log"
	"os"
	"os/signal"
	"strings"
	"syscall"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/client-go/util/workqueue"
)

// kubeletCommand plays the scheduler and the kubelet of one fake Node: it binds every unscheduled
// pod whose nodeSelector the node matches to that node and runs, for each pod, one real
// kode-gopher-sandbox as a plain process listening on a loopback address of its own (127.0.0.N,
// the pod's IP), then reports the pod Running and Ready. When a pod is deleted it stops that
// process, frees the address and finishes the deletion the way a kubelet does (grace period 0).
// A server that exits on its own is started again at the same address with restartCount + 1, or,
// with restartPolicy Never, the pod becomes Failed (OnFailure is treated as Always); one that exits
// before it was ever ready is started again (with the work queue's back-off), or, under Never,
// fails the pod. The first container's args are passed on after the server's own; its command
// is ignored. Without --pod-command there is no container, image or isolation.
func kubeletCommand(args []string) error {
	fs := flag.NewFlagSet("kubelet", flag.ContinueOnError)
	var p player
	kubeconfig := fs.String("kubeconfig", "", "kubeconfig of the cluster (required)")
	fs.StringVar(&p.nodeName, "node-name", "kcluster-node", "the fake Node pods are bound to")
	fs.StringVar(&p.namespace, "namespace", "", "only pods of this namespace (default: all)")
	fs.StringVar(&p.sandboxServer, "sandbox-server", os.Getenv("KG_SANDBOX_SERVER"),
		"path of kode-gopher-sandbox (default: $KG_SANDBOX_SERVER)")
	fs.StringVar(&p.podsDir, "pods-dir", "", "folder for each pod's work dir and server log (required)")
	podCommand := fs.String("pod-command", os.Getenv("KG_K8S_POD_COMMAND"),
		"instead of the plain server: a command (words split on spaces) that runs a pod's server "+
			"given one more argument, tcp:IP:PORT, the pod's image in $KG_IMAGE and its emptyDir mounts "+
			"in $KG_POD_WRITABLE, e.g. tests/images/oci-run.py pod STORE (the image's root filesystem "+
			"in bubblewrap) (default: $KG_K8S_POD_COMMAND)")
	readyFile := fs.String("ready-file", "", "file written once the node exists and pods are watched")
	if err := fs.Parse(args); err != nil {
		return err
	}
	p.podCommand = strings.Fields(*podCommand)
	if *kubeconfig == "" || p.podsDir == "" || p.sandboxServer == "" {
		return errors.New("--kubeconfig, --pods-dir and --sandbox-server (or $KG_SANDBOX_SERVER) are required")
	}
	if info, err := os.Stat(p.sandboxServer); err != nil || info.IsDir() || info.Mode()&0o111 == 0 {
		return fmt.Errorf("--sandbox-server %s is not an executable file (build kode-gopher-sandbox first)", p.sandboxServer)
	}
	config, err := clientcmd.BuildConfigFromFlags("", *kubeconfig)
	if err != nil {
		return fmt.Errorf("loading kubeconfig %s: %w", *kubeconfig, err)
	}
	p.client, err = kubernetes.NewForConfig(config)
	if err != nil {
		return fmt.Errorf("making a Kubernetes client: %w", err)
	}
	p.addresses = newAddressPool()
	p.servers = map[string]*podServer{}
	p.queue = workqueue.NewTypedRateLimitingQueue(workqueue.DefaultTypedControllerRateLimiter[string]())

	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	if err := p.ensureNode(ctx); err != nil {
		return err
	}
	factory := informers.NewSharedInformerFactoryWithOptions(p.client, 0, informers.WithNamespace(p.namespace))
	podInformer := factory.Core().V1().Pods()
	p.pods = podInformer.Lister()
	enqueue := func(obj any) {
		if key, err := cache.DeletionHandlingMetaNamespaceKeyFunc(obj); err == nil {
			p.queue.Add(key)
		}
	}
	if _, err := podInformer.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: enqueue, UpdateFunc: func(_, obj any) { enqueue(obj) }, DeleteFunc: enqueue,
	}); err != nil {
		return fmt.Errorf("watching pods: %w", err)
	}
	factory.Start(ctx.Done())
	if !cache.WaitForCacheSync(ctx.Done(), podInformer.Informer().HasSynced) {
		return errors.New("the pod watch never synced")
	}
	if *readyFile != "" {
		if err := os.WriteFile(*readyFile, []byte("ready\n"), 0o644); err != nil {
			return fmt.Errorf("writing %s: %w", *readyFile, err)
		}
	}
	log.Printf("playing kubelet of node %s for pods in %s", p.nodeName, orAll(p.namespace))
	for range 4 {
		go p.work(ctx)
	}
	<-ctx.Done()
	p.queue.ShutDown()
	p.stopAll()
	return nil
}

func orAll(namespace string) string {
	if namespace == "" {
		return "all namespaces"
	}
	return "namespace " + namespace
}

// ensureNode creates the fake Node, Ready, if it does not exist yet.
func (p *player) ensureNode(ctx context.Context) error {
	nodes := p.client.CoreV1().Nodes()
	p.nodeLabels = map[string]string{
		"kubernetes.io/hostname": p.nodeName, "kubernetes.io/os": "linux", "kubernetes.io/arch": "amd64",
	}
	if node, err := nodes.Get(ctx, p.nodeName, metav1.GetOptions{}); err == nil {
		p.nodeLabels = node.Labels
		return nil
	} else if !apierrors.IsNotFound(err) {
		return fmt.Errorf("looking up node %s: %w", p.nodeName, err)
	}
	capacity := corev1.ResourceList{
		corev1.ResourceCPU:    resource.MustParse("64"),
		corev1.ResourceMemory: resource.MustParse("256Gi"),
		corev1.ResourcePods:   resource.MustParse("250"),
	}
	node, err := nodes.Create(ctx, &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: p.nodeName, Labels: p.nodeLabels},
	}, metav1.CreateOptions{})
	if err != nil {
		return fmt.Errorf("creating node %s: %w", p.nodeName, err)
	}
	now := metav1.Now()
	node.Status = corev1.NodeStatus{
		Capacity:    capacity,
		Allocatable: capacity,
		Conditions: []corev1.NodeCondition{{
			Type: corev1.NodeReady, Status: corev1.ConditionTrue, Reason: "KubeletReady",
			Message: "the kcluster kubelet player is running", LastHeartbeatTime: now, LastTransitionTime: now,
		}},
		Addresses: []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: "127.0.0.1"},
			{Type: corev1.NodeHostName, Address: p.nodeName}},
		NodeInfo: corev1.NodeSystemInfo{KubeletVersion: "kcluster-player", OperatingSystem: "linux", Architecture: "amd64"},
	}
	if _, err := nodes.UpdateStatus(ctx, node, metav1.UpdateOptions{}); err != nil {
		return fmt.Errorf("marking node %s Ready: %w", p.nodeName, err)
	}
	return nil
}

func (p *player) work(ctx context.Context) {
	for {
		key, shutdown := p.queue.Get()
		if shutdown {
			return
		}
		if err := p.sync(ctx, key); err != nil {
			log.Printf("pod %s: %v (will retry)", key, err)
			p.queue.AddRateLimited(key)
		} else {
			p.queue.Forget(key)
		}
		p.queue.Done(key)
	}
}

// sync brings one pod to what a kubelet would make of it.
func (p *player) sync(ctx context.Context, key string) error {
	namespace, name, err := cache.SplitMetaNamespaceKey(key)
	if err != nil {
		return nil
	}
	pod, err := p.pods.Pods(namespace).Get(name)
	if apierrors.IsNotFound(err) {
		p.stopServer(key, "pod is gone")
		return nil
	}
	if err != nil {
		return err
	}
	if pod.DeletionTimestamp != nil {
		if pod.Spec.NodeName != p.nodeName {
			return nil
		}
		p.stopServer(key, "pod is being deleted")
		return p.finishDeletion(ctx, pod)
	}
	if pod.Spec.NodeName == "" {
		if !fitsNode(pod, p.nodeLabels) {
			// What a scheduler does with a pod no node fits: leave it Pending.
			return nil
		}
		return p.bind(ctx, pod)
	}
	if pod.Spec.NodeName != p.nodeName || pod.Status.Phase == corev1.PodSucceeded || pod.Status.Phase == corev1.PodFailed {
		return nil
	}
	server, exitBeingHandled := p.serverFor(key)
	if exitBeingHandled {
		return nil
	}
	if server != nil && server.uid != pod.UID {
		p.stopServer(key, "pod was replaced by one of the same name")
		server = nil
	}
	if server == nil {
		if server, err = p.startServer(key, pod); err != nil {
			// A server that crashes at its start, under restartPolicy Never: the pod is Failed,
			// as a kubelet reports a container that exits before it was ever ready. Otherwise
			// the start is retried (a crash loop, with the work queue's back-off).
			var exited *exitedBeforeReady
			if errors.As(err, &exited) && pod.Spec.RestartPolicy == corev1.RestartPolicyNever {
				log.Printf("pod %s: %v\npod %s: restartPolicy Never; reporting the pod Failed", key, err, key)
				p.markExited(ctx, pod, exited.terminated, true)
				return nil
			}
			return err
		}
	}
	if pod.Status.Phase == corev1.PodRunning && pod.Status.PodIP == server.ip && podReady(pod) {
		return nil
	}
	return p.markRunning(ctx, pod, server)
}

func (p *player) bind(ctx context.Context, pod *corev1.Pod) error {
	err := p.client.CoreV1().Pods(pod.Namespace).Bind(ctx, &corev1.Binding{
		ObjectMeta: metav1.ObjectMeta{Name: pod.Name, UID: pod.UID},
		Target:     corev1.ObjectReference{Kind: "Node", Name: p.nodeName},
	}, metav1.CreateOptions{})
	if err != nil && !apierrors.IsConflict(err) {
		return fmt.Errorf("binding to node %s: %w", p.nodeName, err)
	}
	log.Printf("pod %s/%s: bound to node %s", pod.Namespace, pod.Name, p.nodeName)
	return nil
}

// finishDeletion removes the pod object once its server is gone, as the kubelet does after the
// containers stopped; the UID precondition keeps it from deleting a newer pod of the same name.
func (p *player) finishDeletion(ctx context.Context, pod *corev1.Pod) error {
	zero := int64(0)
	err := p.client.CoreV1().Pods(pod.Namespace).Delete(ctx, pod.Name, metav1.DeleteOptions{
		GracePeriodSeconds: &zero, Preconditions: &metav1.Preconditions{UID: &pod.UID},
	})
	if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
		return fmt.Errorf("finishing the deletion: %w", err)
	}
	return nil
}

// markRunning reports the pod Running and Ready at the server's address, with every container
// ready, as the kubelet does once the readiness probe passes.
func (p *player) markRunning(ctx context.Context, pod *corev1.Pod, server *podServer) error {
	fresh, err := p.client.CoreV1().Pods(pod.Namespace).Get(ctx, pod.Name, metav1.GetOptions{})
	if err != nil {
		return fmt.Errorf("reading the pod before its status update: %w", err)
	}
	if fresh.UID != server.uid {
		return nil
	}
	now := metav1.Now()
	started := metav1.NewTime(server.started)
	status := &fresh.Status
	status.Phase = corev1.PodRunning
	status.HostIP = "127.0.0.1"
	status.HostIPs = []corev1.HostIP{{IP: "127.0.0.1"}}
	status.PodIP = server.ip
	status.PodIPs = []corev1.PodIP{{IP: server.ip}}
	status.StartTime = &started
	status.Conditions = nil
	for _, t := range []corev1.PodConditionType{corev1.PodReadyToStartContainers, corev1.PodInitialized,
		corev1.PodScheduled, corev1.ContainersReady, corev1.PodReady} {
		status.Conditions = append(status.Conditions, corev1.PodCondition{Type: t, Status: corev1.ConditionTrue, LastTransitionTime: now})
	}
	status.ContainerStatuses = nil
	for _, c := range fresh.Spec.Containers {
		status.ContainerStatuses = append(status.ContainerStatuses, corev1.ContainerStatus{
			Name: c.Name, Image: c.Image, ImageID: "kcluster://kode-gopher-sandbox",
			ContainerID: fmt.Sprintf("kcluster://%d", server.process.cmd.Process.Pid),
			Ready:       true, Started: boolPtr(true), RestartCount: server.restarts,
			State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: started}},
		})
		if server.lastExit != nil {
			status.ContainerStatuses[len(status.ContainerStatuses)-1].LastTerminationState =
				corev1.ContainerState{Terminated: server.lastExit}
		}
	}
	if _, err := p.client.CoreV1().Pods(pod.Namespace).UpdateStatus(ctx, fresh, metav1.UpdateOptions{}); err != nil {
		return fmt.Errorf("reporting it Running at %s: %w", server.ip, err)
	}
	log.Printf("pod %s/%s: Running and Ready at %s", pod.Namespace, pod.Name, server.ip)
	return nil
}

// markExited reports the pod's containers terminated and the pod not Ready; failed also makes the
// pod Failed (its server will not be restarted).
func (p *player) markExited(ctx context.Context, pod *corev1.Pod, terminated *corev1.ContainerStateTerminated, failed bool) {
	fresh, err := p.client.CoreV1().Pods(pod.Namespace).Get(ctx, pod.Name, metav1.GetOptions{})
	if err != nil || fresh.UID != pod.UID || fresh.DeletionTimestamp != nil {
		return
	}
	now := metav1.Now()
	if failed {
		fresh.Status.Phase = corev1.PodFailed
	}
	for i := range fresh.Status.Conditions {
		if t := fresh.Status.Conditions[i].Type; t == corev1.PodReady || t == corev1.ContainersReady {
			fresh.Status.Conditions[i].Status = corev1.ConditionFalse
			fresh.Status.Conditions[i].Reason = "ContainersNotReady"
			fresh.Status.Conditions[i].LastTransitionTime = now
		}
	}
	if len(fresh.Status.ContainerStatuses) == 0 {
		// It never ran long enough to be reported (a crash at its start).
		for _, c := range fresh.Spec.Containers {
			fresh.Status.ContainerStatuses = append(fresh.Status.ContainerStatuses,
				corev1.ContainerStatus{Name: c.Name, Image: c.Image})
		}
	}
	for i := range fresh.Status.ContainerStatuses {
		cs := &fresh.Status.ContainerStatuses[i]
		cs.Ready = false
		cs.Started = boolPtr(false)
		cs.State = corev1.ContainerState{Terminated: terminated}
	}
	if _, err := p.client.CoreV1().Pods(pod.Namespace).UpdateStatus(ctx, fresh, metav1.UpdateOptions{}); err != nil {
		log.Printf("pod %s/%s: reporting its container terminated: %v", pod.Namespace, pod.Name, err)
	}
}

func podReady(pod *corev1.Pod) bool {
	for _, c := range pod.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// fitsNode is the one scheduling rule played: the pod's nodeSelector must match the node's
// labels (a template can keep its pods Pending with a selector no node has). Affinity, taints and
// resources are not considered.
func fitsNode(pod *corev1.Pod, nodeLabels map[string]string) bool {
	for key, value := range pod.Spec.NodeSelector {
		if nodeLabels[key] != value {
			return false
		}
	}
	return true
}

func boolPtr(b bool) *bool { return &b }
