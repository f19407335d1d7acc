import type { PartnerEventType } from '../schemas/index.js';

/**
 * Example fields of each partner event type, within the documented contract: the inspector's
 * partner event form starts from them, and `messaging-webhooks trigger partner-event` sends them
 * when no field of the event is given.
 */
export const PARTNER_EVENT_EXAMPLES: Readonly<Record<PartnerEventType, Readonly<Record<string, string>>>> = {
  PHONE_QUALITY_CHANGED: {
    qualityRating: 'YELLOW',
    messagingLimitTier: 'TIER_1K',
    channelStatus: 'CONNECTED',
  },
  TEMPLATE_STATUS_CHANGED: { templateName: 'welcome', templateStatus: 'APPROVED' },
  TEMPLATE_QUALITY_CHANGED: {
    templateName: 'welcome',
    previousQualityScore: 'GREEN',
    newQualityScore: 'RED',
  },
  TEMPLATE_COMPONENTS_CHANGED: { templateName: 'welcome', templateLanguage: 'en', templateElement: 'BODY' },
  USER_PREFERENCE: { waId: '27831234567', category: 'MARKETING', preferenceValue: 'stop' },
  USER_CHANGED_NUMBER: { oldNumber: '+27831234567', newNumber: '+27831234568' },
};
