// Lives in @esign-elements/shared (the token proxy uses it too).
export { base64url } from '@esign-elements/shared/base64url';
