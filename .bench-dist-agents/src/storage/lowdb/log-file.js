import { open, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import { syncDir } from './fsync-path.js';
import { readRows, selectSeqs } from './log-query.js';
import { scanLog } from './log-scan.js';
import { RowIndex } from './row-index.js';
/**
 * One stream's JSON-lines file: an open handle, the row index and the head row. Appends are group
 * committed (rows built while a write is in flight go out together in the next write, with one
 * fdatasync), and reads fetch only the selected rows' bytes.
 */
export class LogFile {
    options;
    fh;
    #index = new RowIndex();
    #reads = new Set();
    #queue = [];
    #flushing;
    /** Last row on disk: what readers see. */
    #durableHead;
    /** Last row built, possibly still in flight: what the next `build` sees. */
    #head;
    #nextSeq = 0;
    #broken;
    #closing;
    constructor(options, fh) {
        this.options = options;
        this.fh = fh;
    }
    /** Opens (creating if needed) and indexes the file, dropping a torn last line. */
    static async open(options) {
        const existed = await stat(options.file).then(() => true, () => false);
        // 'a+': every write lands at the end of the file whatever else happens; positioned reads still work.
        const fh = await open(options.file, 'a+');
        const log = new LogFile(options, fh);
        try {
            if (!existed && options.fsync)
                await syncDir(dirname(options.file));
            const { head, validEnd, torn } = await scanLog(fh, log.#index, options.file);
            if (torn !== undefined) {
                const { size } = await fh.stat();
                await fh.truncate(validEnd);
                if (options.fsync)
                    await fh.datasync();
                const message = `${options.file}: dropped ${size - validEnd} bytes at the end: ${torn}`;
                options.onWarning?.({ message, stream: options.stream, file: options.file, droppedBytes: size - validEnd });
            }
            log.#durableHead = log.#head = head;
            log.#nextSeq = log.#index.length;
            return log;
        }
        catch (error) {
            await fh.close();
            throw error;
        }
    }
    /** Builds the row now, under the stream's lock (this method is synchronous up to the write). */
    append(build) {
        if (this.#closing !== undefined)
            return Promise.reject(new Error(`log ${this.options.stream} is closed`));
        if (this.#broken !== undefined)
            return Promise.reject(this.#broken);
        let pending;
        try {
            pending = this.#encode(build(this.#head, this.#nextSeq), this.#nextSeq);
        }
        catch (error) {
            return Promise.reject(error);
        }
        this.#nextSeq++;
        this.#head = pending.row;
        return new Promise((resolve, reject) => {
            this.#queue.push({ ...pending, resolve, reject });
            this.#flushing ??= this.#flush();
        });
    }
    #encode(built, seq) {
        const draft = { seq, ...built };
        draft['seq'] = seq;
        if (typeof draft['tick'] !== 'number' || !Number.isFinite(draft['tick']))
            throw new TypeError('row tick must be a finite number');
        if (typeof draft['type'] !== 'string')
            throw new TypeError('row type must be a string');
        const line = JSON.stringify(draft);
        // The head and the returned row are the parsed line, so they equal what a later read returns.
        return { row: JSON.parse(line), line, bytes: Buffer.byteLength(line) + 1 };
    }
    async #flush() {
        while (this.#queue.length > 0) {
            const batch = this.#queue;
            this.#queue = [];
            if (this.#broken !== undefined) {
                for (const p of batch)
                    p.reject(this.#broken);
                continue;
            }
            const start = this.#index.endOffset;
            try {
                await this.#writeAll(Buffer.from(batch.map((p) => p.line).join('\n') + '\n'));
                if (this.options.fsync)
                    await this.fh.datasync();
            }
            catch (error) {
                await this.#rollback(start, batch, error);
                continue;
            }
            for (const p of batch)
                this.#index.push(p.bytes, p.row.tick, p.row.type);
            this.#durableHead = batch[batch.length - 1].row;
            for (const p of batch)
                p.resolve(p.row);
        }
        this.#flushing = undefined;
    }
    async #writeAll(data) {
        for (let done = 0; done < data.length;) {
            const { bytesWritten } = await this.fh.write(data, done, data.length - done, null);
            if (bytesWritten === 0)
                throw new Error(`log ${this.options.stream}: write made no progress`);
            done += bytesWritten;
        }
    }
    /**
     * Undoes a failed batch: rows queued since were built on top of it, so they fail too; the head goes
     * back to the last durable row and the file back to its committed length.
     */
    async #rollback(start, batch, error) {
        const failed = [...batch, ...this.#queue];
        this.#queue = [];
        this.#head = this.#durableHead;
        this.#nextSeq = this.#index.length;
        try {
            await this.fh.truncate(start);
        }
        catch (cause) {
            // The file may now hold rows nobody was told about: refuse further appends rather than chain on them.
            this.#broken = new Error(`log ${this.options.stream} could not be rolled back after a failed write`, { cause });
        }
        for (const p of failed)
            p.reject(error);
    }
    head() {
        return this.#durableHead;
    }
    count() {
        return this.#index.length;
    }
    get(seq) {
        if (!Number.isInteger(seq) || seq < 0 || seq >= this.#index.length)
            return Promise.resolve(undefined);
        return this.#track(() => readRows(this.fh, this.#index, [seq]).then((rows) => rows[0]));
    }
    read(query) {
        return this.#track(() => readRows(this.fh, this.#index, selectSeqs(this.#index, query)));
    }
    /** Runs a read unless closing, and remembers it so `close` can wait for it before closing the handle. */
    #track(read) {
        if (this.#closing !== undefined)
            return Promise.reject(new Error(`log ${this.options.stream} is closed`));
        const work = read();
        this.#reads.add(work);
        const forget = () => void this.#reads.delete(work);
        work.then(forget, forget);
        return work;
    }
    /** Lets queued appends and running reads finish, then closes the handle. Idempotent. */
    close() {
        this.#closing ??= (async () => {
            await this.#flushing;
            await Promise.allSettled([...this.#reads]);
            await this.fh.close();
        })();
        return this.#closing;
    }
}
//# sourceMappingURL=log-file.js.map