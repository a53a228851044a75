import { venueInHeader, venueInSubject } from '../messages/subject.view.ts';
import type { NotificationLanguage } from '../schema.ts';

/** "Your table is ready" in each language the venue may write in: the subject line and the text. */
const TABLE_READY: Record<NotificationLanguage, { subject: string; text: string }> = {
  en: { subject: 'Your table is ready', text: 'Your table is ready. Please come to the host stand.' },
  de: { subject: 'Ihr Tisch ist bereit', text: 'Ihr Tisch ist bereit. Bitte kommen Sie zum Empfang.' },
  fr: {
    subject: 'Votre table est prête',
    text: 'Votre table est prête. Merci de vous présenter à l’accueil.',
  },
  nl: { subject: 'Uw tafel is klaar', text: 'Uw tafel is klaar. Kom alstublieft naar de ontvangst.' },
  es: { subject: 'Su mesa está lista', text: 'Su mesa está lista. Por favor, acérquese a la recepción.' },
};

/**
 * The message telling a walk-in their table is ready, in the venue's language, headed by its name as
 * every subject line shows it (at most 60 characters: an SMS stays one segment).
 */
export function tableReadyMessage(language: NotificationLanguage, venueName: string) {
  const { subject, text } = TABLE_READY[language];
  return {
    subject: `${subject}: ${venueInSubject(venueName)}`,
    text: `${venueInHeader(venueName)}: ${text}`,
  };
}
