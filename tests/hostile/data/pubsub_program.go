// The Pub/Sub program of the hostile egress tests (tests/hostile/test_hostile_egress_pubsub.cpp):
// Google's own Go client, cloud.google.com/go/pubsub/v2, with nothing test-specific, calling
// "pubsub.googleapis.com" (pstest-tls, tests/tools/pstest_tls, by the test's /etc/hosts) over
// gRPC through the sandbox's egress proxy. It reports the token it holds (the sandbox's
// placeholder in sealed mode) and, per step, the gRPC code it got. The test sets `steps` (the
// line below) to the steps of its case. scripts/setup.sh tidies this file against the curated
// lockfile to fill the module mirror the test's daemon tidies it from (the test network has no
// module proxy).
package snippet

import (
	"context"
	"strings"
	"sync"
	"time"

	"cloud.google.com/go/pubsub/v2"
	"cloud.google.com/go/pubsub/v2/apiv1/pubsubpb"
	"golang.org/x/oauth2/google"
	"google.golang.org/grpc/status"
)

var steps = "create publish pull"

const (
	topic        = "projects/test-project/topics/kg-topic"
	subscription = "projects/test-project/subscriptions/kg-subscription"
)

// The outcome of one step: its gRPC code ("OK" without an error) and message.
func outcome(out map[string]any, step string, err error) {
	out[step] = status.Code(err).String()
	if err != nil {
		out[step+"_error"] = err.Error()
	}
}

func run(ctx context.Context) (any, error) {
	tokens, err := google.DefaultTokenSource(ctx, pubsub.ScopePubSub)
	if err != nil {
		return nil, err
	}
	token, err := tokens.Token()
	if err != nil {
		return nil, err
	}
	client, err := pubsub.NewClient(ctx, "test-project")
	if err != nil {
		return nil, err
	}
	defer client.Close()
	out := map[string]any{"token": token.AccessToken}
	if strings.Contains(steps, "create") {
		_, err := client.TopicAdminClient.CreateTopic(ctx, &pubsubpb.Topic{Name: topic})
		outcome(out, "create_topic", err)
		_, err = client.SubscriptionAdminClient.CreateSubscription(ctx,
			&pubsubpb.Subscription{Name: subscription, Topic: topic})
		outcome(out, "create_subscription", err)
	}
	if strings.Contains(steps, "publish") {
		publisher := client.Publisher(topic)
		id, err := publisher.Publish(ctx, &pubsub.Message{Data: []byte("hello from the sandbox")}).Get(ctx)
		publisher.Stop()
		outcome(out, "publish", err)
		out["message_id"] = id
	}
	if strings.Contains(steps, "pull") {
		subscriber := client.Subscriber(subscription)
		subscriber.ReceiveSettings.NumGoroutines = 1
		pulling, stop := context.WithTimeout(ctx, 20*time.Second)
		var mu sync.Mutex
		var pulled []string
		err := subscriber.Receive(pulling, func(_ context.Context, message *pubsub.Message) {
			mu.Lock()
			pulled = append(pulled, string(message.Data))
			mu.Unlock()
			message.Ack()
			stop()
		})
		stop()
		outcome(out, "pull", err)
		out["pulled"] = pulled
	}
	return out, nil
}
