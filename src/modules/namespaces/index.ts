import { defineModule } from '../module.ts';
import './schema.ts';

export const namespaces = defineModule({
  name: 'namespaces',
});
