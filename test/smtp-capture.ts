import type { AddressInfo } from 'node:net';
import { type ParsedMail, simpleParser } from 'mailparser';
import ical, { type VEvent } from 'node-ical';
import { SMTPServer } from 'smtp-server';

export interface Captured {
  to: string[];
  raw: string;
  mail: ParsedMail;
}

/**
 * An SMTP server on loopback that keeps every message it accepts, parsed by mailparser (an
 * independent reader of what nodemailer wrote). `onMessage` runs once a message is accepted.
 */
export async function startSmtpCapture(onMessage?: (message: Captured) => void) {
  const received: Captured[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', async () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        const message = {
          to: session.envelope.rcptTo.map((rcpt) => rcpt.address),
          raw,
          mail: await simpleParser(raw),
        };
        received.push(message);
        callback();
        onMessage?.(message);
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  return {
    url: `smtp://127.0.0.1:${port}`,
    received,
    close: () => new Promise<void>((resolve) => server.close(resolve)),
  };
}

/** The invite a mail carries as its `invite.ics` attachment, read by node-ical: its method and event. */
export function inviteOf(mail: ParsedMail): { method: string; event: VEvent } {
  const attachment = mail.attachments.find((file) => file.filename === 'invite.ics');
  if (!attachment) throw new Error(`no invite.ics in "${mail.subject}"`);
  const parsed = ical.sync.parseICS(attachment.content.toString('utf8'));
  const event = Object.values(parsed).find((component) => component?.type === 'VEVENT') as VEvent;
  return { method: String((parsed.vcalendar as { method?: string }).method), event };
}
