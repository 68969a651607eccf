// app/contracts.tsx (Next.js): the elements with their handlers in a component of your own ('use client': a Server
// Component cannot pass functions); app/page.tsx, a Server Component, renders <Contracts />
'use client';
import { useRef, useState } from 'react';
import type { EsignContractList as ContractList } from 'esign-elements';
import { EsignConnect } from 'esign-elements/react/esign-connect.js';
import { EsignContractList } from 'esign-elements/react/esign-contract-list.js';
import { EsignSigningFrame } from 'esign-elements/react/esign-signing-frame.js';
import { EsignUploader } from 'esign-elements/react/esign-uploader.js';

export function Contracts() {
  const [space, setSpace] = useState('');
  const [fileIds, setFileIds] = useState<string[]>([]);
  const [sent, setSent] = useState(false);
  const list = useRef<ContractList>(null);
  return (
    <main>
      <h1>Contracts</h1>
      <EsignConnect
        id="esign"
        clientId={process.env.NEXT_PUBLIC_ESIGN_CLIENT_ID!}
        baseUrl={process.env.NEXT_PUBLIC_ESIGN_BASE_URL!}
        tokenEndpoint="/api/esign/token"
        onEsignConnected={(event) => setSpace(event.detail.session.spaceId ?? '')}
      />
      {space && <p role="status">Next.js sees Space {space}</p>}
      <EsignUploader connect="esign" accept=".pdf" onEsignUploadComplete={(event) => setFileIds([...event.detail.fileIds])} />
      {fileIds.length > 0 && (
        <>
          <p>{fileIds.length} file ready to send</p>
          <EsignSigningFrame
            connect="esign"
            fileIds={fileIds}
            auto
            style={{ minHeight: '30rem' }}
            onEsignEnvelopeSent={() => {
              setSent(true);
              void list.current?.refresh();
            }}
          />
        </>
      )}
      {sent && <p>Next.js saw the envelope sent</p>}
      <EsignContractList connect="esign" ref={list} style={{ minHeight: '20rem' }} />
    </main>
  );
}
