// src/app/app.ts (Angular SSR): the elements' settings from src/environments/, their events typed by strictTemplates
import { Component, CUSTOM_ELEMENTS_SCHEMA, type ElementRef, signal, viewChild } from '@angular/core';
import type { EsignConnectedDetail, EsignContractList, EsignUploadCompleteDetail } from 'esign-elements';
import { environment } from '../environments/environment';

@Component({
  selector: 'app-root',
  schemas: [CUSTOM_ELEMENTS_SCHEMA],
  template: `
    <main>
      <h1>Contracts</h1>
      <esign-connect id="esign" [clientId]="esign.clientId" [baseUrl]="esign.baseUrl" token-endpoint="/api/esign/token" (esign-connected)="connected($event)" />
      @if (space()) {
        <p role="status">Angular sees Space {{ space() }}</p>
      }
      <esign-uploader connect="esign" accept=".pdf" (esign-upload-complete)="uploaded($event)" />
      @if (fileIds().length) {
        <p>{{ fileIds().length }} file ready to send</p>
        <esign-signing-frame connect="esign" [fileIds]="fileIds()" auto style="min-height: 30rem" (esign-envelope-sent)="sent()" />
      }
      @if (wasSent()) {
        <p>Angular saw the envelope sent</p>
      }
      <esign-contract-list #list connect="esign" style="min-height: 20rem" />
    </main>
  `,
})
export class App {
  protected readonly esign = environment.esign;
  protected readonly space = signal('');
  protected readonly fileIds = signal<string[]>([]);
  protected readonly wasSent = signal(false);
  private readonly list = viewChild<ElementRef<EsignContractList>>('list');

  protected connected(event: CustomEvent<EsignConnectedDetail>): void {
    this.space.set(event.detail.session.spaceId ?? '');
  }

  protected uploaded(event: CustomEvent<EsignUploadCompleteDetail>): void {
    this.fileIds.set([...event.detail.fileIds]);
  }

  protected sent(): void {
    this.wasSent.set(true);
    void this.list()?.nativeElement.refresh();
  }
}
