import { defineModule } from '../module.ts';
import { deliver, DELIVERY_QUEUE, onAccessRequest, onAlert, onMember, onPush, onRelease } from './delivery.ts';
import { routes } from './rest.ts';
import './schema.ts';

export const integrations = defineModule({
  name: 'integrations',
  routes,
  operations: new URL('./operations.graphql', import.meta.url),
  subscribers: { push: [onPush], release: [onRelease], alert: [onAlert], member: [onMember], accessRequest: [onAccessRequest] },
  // A failing receiver is retried (1 s, 2 s, 4 s … with jitter) before the job is given up.
  jobs: { [DELIVERY_QUEUE]: { handler: deliver, retryLimit: 5, retryDelaySeconds: 1, retryBackoff: true } },
});
