// The service's types live in @esign-elements/shared (the emulator and the token proxy use them too).
export * from '@esign-elements/shared/service-types';
