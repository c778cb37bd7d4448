import request from 'supertest';
import { appServing } from '../test/helpers/app.js';
const t = await appServing('/work/wt-21/data');
for (const u of process.argv.slice(2)) { const r = await request(t.app).get(u); console.log(u, r.status, r.headers['content-type'], r.type.includes('json') ? JSON.stringify(r.body).slice(0, 1500) : r.text?.slice(0,600)); }
await t.close();
