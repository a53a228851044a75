/**
 * The kinds of venue that serve food and drink at their tables, as a business's free-text
 * `business_type` names them: schema.org's FoodEstablishment and its kinds (restaurant, bar or
 * pub, café, bakery, brewery, winery...). A confirmation's reservation markup and a partner's
 * merchant category follow it.
 */
const FOOD_ESTABLISHMENT =
  /\b(restaurants?|bistros?|brasseries?|trattorias?|tavernas?|diners?|eatery|bars?|pubs?|caf[eé]s?|coffee ?shops?|bakery|bakeries|brewery|breweries|winery|wineries|distillery|izakaya)\b/i;

export const isFoodEstablishment = (businessType: string | null | undefined): boolean =>
  businessType != null && FOOD_ESTABLISHMENT.test(businessType.replace(/[_-]/g, ' '));
