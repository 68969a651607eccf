// Consumer check (npm run test:types): the esign-* tags typed in React 19 JSX by one type import.
import type {} from 'esign-elements/types/react';
import type { EsignUploader } from 'esign-elements';

export function Upload() {
  return (
    <esign-uploader
      max-size={1024}
      multiple
      accept=".pdf"
      onesign-upload-complete={(event) => console.log(event.detail.fileIds.join(', '))}
      ref={(el: EsignUploader | null) => el?.reset()}
    />
  );
}

// server rendering (Next.js): React's own prop on a plain tag
export const hydrated = <esign-connect token-endpoint="/api/esign/token" suppressHydrationWarning />;

// a wrong prop type must fail: max-size is a number of bytes
// @ts-expect-error string for a number attribute
export const wrong = <esign-uploader max-size="big" />;
// @ts-expect-error an event handler gets the typed detail
export const wrongDetail = <esign-uploader onesign-upload-complete={(event) => event.detail.nope} />;
