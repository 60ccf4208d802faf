import { defineModule } from '../module.ts';
import { intakeRouter } from './intake.ts';
import { createAlertLoaders } from './loaders.ts';
import { routes } from './rest.ts';
import './schema.ts';
import { ALERT_EMAIL_QUEUE, INCIDENT_QUEUE, mailAlert, runIncidentJob, type AlertEmailJob, type IncidentJob } from './service.ts';

/** Alert management: endpoints, intake, alerts and their triage, incidents opened from alerts. */
export const alerts = defineModule({
  name: 'alerts',
  routes,
  loaders: { alerts: createAlertLoaders },
  machineEndpoints: intakeRouter,
  operations: new URL('./operations.graphql', import.meta.url),
  jobs: {
    [INCIDENT_QUEUE]: { handler: (data: IncidentJob, job) => runIncidentJob(data, job.deps), retryLimit: 5 },
    [ALERT_EMAIL_QUEUE]: { handler: (data: AlertEmailJob, job) => mailAlert(job.deps, data.alertId), retryLimit: 5 },
  },
});
