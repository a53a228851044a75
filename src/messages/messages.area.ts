import type { Area } from '../platform/area.ts';
import { messageRoutes } from './messages.routes.ts';
import { reminderJob } from './reminders.jobs.ts';
import { EmailSender } from './sender.jobs.ts';
import { SmsSender, smsProvider } from './sms.jobs.ts';

export const messagesArea: Area = {
  async routes(app) {
    await app.register(messageRoutes);
  },
  jobs(app) {
    const { config } = app;
    const email = new EmailSender(app.db, app.clock, app.log, {
      smtpUrl: config.smtpUrl,
      publicBaseUrl: config.publicBaseUrl,
      mailFrom: config.mailFrom,
    });
    // Closed after the jobs have stopped: app.ts adds the jobs before its close hook, which Fastify runs first.
    app.addHook('onClose', async () => email.close());
    const sms = new SmsSender(app.db, app.clock, app.log, smsProvider(config.twilio, app.log), config);
    return [
      reminderJob(app.db, app.clock),
      { name: 'email', everyMs: 10_000, run: () => email.run() },
      sms.job(),
    ];
  },
};
