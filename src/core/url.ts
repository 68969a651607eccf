// The URL rules live in @esign-elements/shared (the token proxy applies them too).
export * from '@esign-elements/shared/url';
