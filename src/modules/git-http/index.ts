import { defineModule } from '../module.ts';
import { gitHttpRouter } from './router.ts';

export const gitHttp = defineModule({
  name: 'git-http',
  machineEndpoints: gitHttpRouter,
});
