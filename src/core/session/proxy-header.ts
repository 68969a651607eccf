// The header lives in @esign-elements/shared: the token proxy requires it, the elements send it.
export { PROXY_HEADER, PROXY_HEADER_VALUE } from '@esign-elements/shared/proxy-header';
