// Consumer check (npm run test:types): the esign-* tags typed in Solid JSX by one type import.
import type {} from 'esign-elements/types/solid';

export function Upload() {
  return (
    <esign-uploader
      max-size={1024}
      multiple
      accept=".pdf"
      on:esign-upload-complete={(event) => console.log(event.detail.fileIds.join(', '))}
    />
  );
}

// a wrong prop type must fail: max-size is a number of bytes
// @ts-expect-error string for a number attribute
export const wrong = <esign-uploader max-size="big" />;
